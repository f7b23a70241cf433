//go:build integration

package tier

import (
	"context"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/reconcile"
	"github.com/ilmctl/ilmctl/internal/itest"
)

// tierOf is a reconcile.Tier on the S3 gateway under test.
func tierOf(t *testing.T, bucket string) reconcile.Tier {
	endpoint, ak, sk := itest.S3Env(t)
	return reconcile.Tier{Name: "WARM", AccessKey: ak, SecretKey: sk,
		Destination: reconcile.Destination{Type: reconcile.TierS3, Endpoint: "http://" + endpoint, Bucket: bucket, Region: "us-east-1"}}
}

func probe(t *testing.T, tier reconcile.Tier, key string) (reconcile.Observation, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Prober{}.Probe(ctx, tier, key)
}

// One SeaweedFS bucket per versioning mode, plus the cases the derivations
// refuse: each observation is what derive then reads.
func TestProbeSeaweedFS(t *testing.T) {
	s3 := itest.FromEnv(t)
	tests := []struct {
		name       string
		versioning string // "" never enabled
		puts       int
		key        string // probed key; default "cold/remote-1"
		wantStatus string
		wantNull   bool // the single version is the null version
		wantN      int
	}{
		{name: "versioning never enabled", puts: 1, wantStatus: "", wantNull: true, wantN: 1},
		{name: "versioning enabled", versioning: "Enabled", puts: 1, wantStatus: "Enabled", wantN: 1},
		{name: "versioning suspended", versioning: "Suspended", puts: 1, wantStatus: "Suspended", wantNull: true, wantN: 1},
		{name: "two versions of the remote object", versioning: "Enabled", puts: 2, wantStatus: "Enabled", wantN: 2},
		{name: "remote object missing", versioning: "Enabled", puts: 1, key: "cold/remote-2", wantStatus: "Enabled", wantN: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := s3.CreateBucket(t, "tier")
			if tt.versioning != "" {
				s3.PutVersioning(t, bucket, tt.versioning)
			}
			var lastID string
			for i := 0; i < tt.puts; i++ {
				lastID, _ = s3.PutObject(t, bucket, "cold/remote-1", "payload", nil)
			}
			// A sibling that shares the key as a prefix is not the object.
			s3.PutObject(t, bucket, "cold/remote-10", "other", nil)
			key := tt.key
			if key == "" {
				key = "cold/remote-1"
			}
			obs, err := probe(t, tierOf(t, bucket), key)
			if err != nil {
				t.Fatal(err)
			}
			if obs.Versioning != tt.wantStatus || obs.VersioningAfter != tt.wantStatus {
				t.Fatalf("versioning %q then %q, want %q", obs.Versioning, obs.VersioningAfter, tt.wantStatus)
			}
			if len(obs.Versions) != tt.wantN {
				t.Fatalf("versions %+v, want %d", obs.Versions, tt.wantN)
			}
			if tt.wantN == 1 {
				v := obs.Versions[0]
				isNull := v.VersionID == "" || v.VersionID == "null"
				if isNull != tt.wantNull || v.DeleteMarker {
					t.Fatalf("version %+v, want null=%v", v, tt.wantNull)
				}
				if !tt.wantNull && v.VersionID != lastID {
					t.Fatalf("version id %q, PutObject returned %q", v.VersionID, lastID)
				}
			}
		})
	}
}

func TestProbeUnavailable(t *testing.T) {
	s3 := itest.FromEnv(t)
	t.Run("tier down", func(t *testing.T) {
		tier := tierOf(t, "any")
		tier.Destination.Endpoint = "http://127.0.0.1:1"
		if _, err := probe(t, tier, "k"); err == nil {
			t.Fatal("a probe of a closed port succeeded")
		}
	})
	t.Run("no such bucket", func(t *testing.T) {
		if _, err := probe(t, tierOf(t, itest.UniqueName("absent")), "k"); err == nil {
			t.Fatal("a probe of a missing bucket succeeded")
		}
	})
	t.Run("wrong credentials", func(t *testing.T) {
		tier := tierOf(t, s3.CreateBucket(t, "tier"))
		tier.SecretKey = "wrong"
		if _, err := probe(t, tier, "k"); err == nil {
			t.Fatal("a probe with a wrong secret key succeeded")
		}
	})
}
