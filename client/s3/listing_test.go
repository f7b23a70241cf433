package s3

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
)

// A page of uploads is in AWS's order (key, then initiation) whatever the
// server's: MinIO lists a bucket's uploads in initiation order across
// keys.
func TestListUploadsPageOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		listed []string // key/uploadID, in the server's order; initiated a second apart
		want   []string
	}{
		{"AWS order is kept", []string{"a/u2", "a/u1", "b/u0"}, []string{"a/u2", "a/u1", "b/u0"}},
		{"MinIO's initiation order across keys", []string{"z/u1", "a/u9", "m/u2", "a/u3", "b/u0"},
			[]string{"a/u9", "a/u3", "b/u0", "m/u2", "z/u1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var sb strings.Builder
				sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult><Bucket>b</Bucket><IsTruncated>false</IsTruncated>`)
				for i, u := range tc.listed {
					key, id, _ := strings.Cut(u, "/")
					fmt.Fprintf(&sb, `<Upload><Key>%s</Key><UploadId>%s</UploadId><Initiated>%s</Initiated></Upload>`,
						key, id, t0.Add(time.Duration(i)*time.Second).Format("2006-01-02T15:04:05.000Z"))
				}
				sb.WriteString(`</ListMultipartUploadsResult>`)
				fmt.Fprint(w, sb.String())
			}))
			t.Cleanup(srv.Close)
			st, err := Open(context.Background(), strings.TrimPrefix(srv.URL, "http://"), Options{
				PathStyle: true, State: t.TempDir(), Credentials: credentials.NewStaticCredentialsProvider("id", "secret", "")})
			if err != nil {
				t.Fatal(err)
			}
			ups, next, err := st.ListUploads(context.Background(), "b", "", 10)
			if err != nil || next != "" {
				t.Fatalf("ListUploads: next %q, %v", next, err)
			}
			var got []string
			for _, u := range ups {
				got = append(got, u.Key+"/"+u.UploadID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
		})
	}
}
