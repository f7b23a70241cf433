//go:build integration

package main

import (
	"context"
	"net"
	"sort"
	"strings"
	"testing"

	clientmeta "github.com/ilmctl/ilmctl/client/metastore"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// TestS3PoolSpellings: s3:// metadata pools on the server under test (one
// bucket, a prefix per pool, holding a complete decommission run). Every
// command that takes several pools refuses, with exit 2 and one line
// naming both spellings, a pool given as its own target or twice under
// another spelling of the same endpoint, bucket and prefix
// (docs/design/decommission.md#pool-identity), and writes nothing. The
// server is asked first that the spellings which must reach one place do:
// a record read through either is the same object. The distinct pools
// still verify (exit 0), so the refusals are of the spellings alone.
func TestS3PoolSpellings(t *testing.T) {
	endpoint, access, secret := itest.S3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	admin := itest.NewClient(endpoint, access, secret)
	bucket := admin.CreateBucket(t, "ilmctl-pools")
	run := decomfixture.Complete()
	var probe string // a receipt key on the source, to read through each spelling
	for pool, keys := range run.Pools {
		for k, b := range keys {
			admin.PutObject(t, bucket, pool+"/"+k, string(b), nil)
			if pool == decomfixture.Source && strings.HasPrefix(k, "decommission/ilm-receipts/") {
				probe = k
			}
		}
	}
	_, port, err := net.SplitHostPort(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	at := func(host, b, pool string) string { return "s3://" + host + "/" + b + "/" + pool }
	url := func(pool string) string { return at(endpoint, bucket, pool) }
	// Each spelling names the first pool again; sameOnServer says the
	// server must serve the pool's objects through it (the others fold
	// what a server may keep apart: a refusal is the safe answer there).
	spellings := []struct {
		name         string
		first        func(pool string) string
		second       func(pool string) string
		sameOnServer bool
	}{
		{"identical", url, url, true},
		{"trailing slash", url, func(p string) string { return url(p) + "/" }, true},
		{"host case", func(p string) string { return at("localhost:"+port, bucket, p) },
			func(p string) string { return at("LocalHost:"+port, bucket, p) }, true},
		{"empty segment", url, func(p string) string { return "s3://" + endpoint + "/" + bucket + "//" + p }, false},
		{"dot-dot segment", url, func(p string) string { return at(endpoint, bucket, "x/../"+p) }, false},
		{"bucket case", url, func(p string) string { return at(endpoint, strings.ToUpper(bucket), p) }, false},
	}
	before := listAll(t, admin, bucket)
	if _, errs, code := execute(t, "decom", "verify", "--run-token", run.Token, "--meta", url(decomfixture.Source),
		"--meta", url(decomfixture.TargetA), "--meta", url(decomfixture.TargetB)); code != 0 {
		t.Fatalf("decom verify of the distinct pools: exit %d, want 0\n%s", code, errs)
	}
	for _, s := range spellings {
		t.Run(s.name, func(t *testing.T) {
			src, src2 := s.first(decomfixture.Source), s.second(decomfixture.Source)
			ta, ta2 := s.first(decomfixture.TargetA), s.second(decomfixture.TargetA)
			tb := s.first(decomfixture.TargetB)
			if s.sameOnServer {
				if a, b := readThrough(t, src, probe), readThrough(t, src2, probe); a != b || a == "" {
					t.Fatalf("%s and %s read %s differently on the server: the premise of the refusal is gone", src, src2, probe)
				}
			}
			for _, c := range []struct {
				args []string
				says string
			}{
				{[]string{"decom", "verify", "--run-token", run.Token, "--meta", src, "--meta", src2},
					"--meta " + src2 + " is the source pool --meta " + src + ": a pool cannot be its own target"},
				{[]string{"decom", "verify", "--run-token", run.Token, "--meta", src, "--meta", ta, "--meta", tb, "--meta", ta2},
					"--meta " + ta + " and --meta " + ta2 + " name the same target pool"},
				{[]string{"decom", "receipts", "ls", "--run-token", run.Token, "--meta", ta, "--meta", ta2},
					"--meta " + ta + " and --meta " + ta2 + " name the same pool"},
				{[]string{"journal", "ls", "--meta", src, "--meta", src2},
					"--meta " + src + " and --meta " + src2 + " name the same pool"},
				{[]string{"recovery", "scan", "--meta", src, "--meta", src2}, "--meta " + src2 + " is the control pool --meta " + src},
			} {
				out, errs, code := execute(t, c.args...)
				line := strings.TrimSuffix(errs, "\n")
				if code != 2 || !strings.Contains(line, c.says) || strings.Contains(line, "\n") {
					t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line saying %q", strings.Join(c.args[:2], " "), code, errs, c.says)
				}
				if out != "" {
					t.Errorf("%s printed a report after the refusal: %s", strings.Join(c.args[:2], " "), out)
				}
			}
			if after := listAll(t, admin, bucket); after != before {
				t.Error("a refused command changed the bucket")
			}
		})
	}
}

// readThrough is key's ETag and bytes read through the metadata-pool
// store opened at url ("" when it is not there).
func readThrough(t *testing.T, url, key string) string {
	t.Helper()
	s, err := clientmeta.OpenS3(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	b, etag, err := s.Get(context.Background(), key)
	if err != nil {
		t.Logf("%s: %v", url, err)
		return ""
	}
	return etag + " " + string(b)
}

// listAll is every object version and upload of bucket, one string.
func listAll(t *testing.T, admin *itest.S3, bucket string) string {
	t.Helper()
	versions, uploads := admin.ListAll(t, bucket)
	sort.Strings(versions)
	return strings.Join(versions, "\n") + "\n#\n" + strings.Join(uploads, "\n")
}
