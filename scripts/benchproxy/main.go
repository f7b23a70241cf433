// Command benchproxy is a counting reverse proxy for S3 benchmarks: it
// forwards every request to -to unchanged (the Host header too, so SigV4
// signatures made for the proxy's address still verify) and counts them
// by S3 operation. GET /__counts answers the counts as JSON
// ({"DeleteObjects": 3, ...}) and resets them. It is a benchmark helper
// for scripts/bench-vs-rclone.sh, not part of ilmctl.
//
//	go run ./scripts/benchproxy -listen 127.0.0.1:19100 -to http://127.0.0.1:19000
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:19100", "address to listen on")
	to := flag.String("to", "http://127.0.0.1:9000", "S3 endpoint to forward to")
	flag.Parse()
	target, err := url.Parse(*to)
	if err != nil {
		log.Fatalf("benchproxy: -to %q: %v", *to, err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	counts := map[string]int{}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/__counts" {
			mu.Lock()
			defer mu.Unlock()
			_ = json.NewEncoder(w).Encode(counts)
			counts = map[string]int{}
			return
		}
		op := operation(r)
		mu.Lock()
		counts[op]++
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	})
	log.Fatal(http.ListenAndServe(*listen, nil))
}

// operation names an S3 request by method, path depth and subresource,
// the way S3's API reference does (path-style addressing).
func operation(r *http.Request) string {
	q := r.URL.Query()
	path := strings.Trim(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	switch {
	case bucket == "":
		return "ListBuckets"
	case key == "" && r.Method == http.MethodPost && q.Has("delete"):
		return "DeleteObjects"
	case key == "" && q.Has("versions"):
		return "ListObjectVersions"
	case key == "" && q.Has("uploads"):
		return "ListMultipartUploads"
	case key == "" && q.Has("lifecycle"):
		return r.Method + " BucketLifecycle"
	case key == "" && q.Has("versioning"):
		return r.Method + " BucketVersioning"
	case key == "" && q.Has("object-lock"):
		return "GetObjectLockConfiguration"
	case key == "" && r.Method == http.MethodGet:
		return "ListObjects"
	case key == "":
		return r.Method + " Bucket"
	case q.Has("tagging"):
		return r.Method + " ObjectTagging"
	case q.Has("uploadId"):
		return r.Method + " MultipartUpload"
	case r.Method == http.MethodHead:
		return "HeadObject"
	case r.Method == http.MethodDelete:
		return "DeleteObject"
	case r.Method == http.MethodGet:
		return "GetObject"
	case r.Method == http.MethodPut:
		return "PutObject"
	}
	return r.Method + " Object"
}
