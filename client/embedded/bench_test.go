package embedded

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// BenchmarkColdPass measures a cold-start pass (recovery walk of every
// shard, then replay) on the embedded filer holding 5k objects with two
// versions each, half of them due. Each iteration loads a fresh filer
// outside the timer.
func BenchmarkColdPass(b *testing.B) {
	const objects = 5000
	type version struct {
		VersionID string    `json:"version_id"`
		Mtime     time.Time `json:"mtime"`
		Size      int64     `json:"size"`
		ETag      string    `json:"etag"`
	}
	type object struct {
		Key      string    `json:"key"`
		Versions []version `json:"versions"`
	}
	var objs []object
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < objects; i++ {
		m := base.Add(time.Duration(i) * time.Hour)
		objs = append(objs, object{Key: fmt.Sprintf("app/%05d.log", i), Versions: []version{
			{fmt.Sprintf("a%d", i), m, 10, "e"}, {fmt.Sprintf("b%d", i), m.Add(time.Minute), 10, "e"},
		}})
	}
	xml := `<LifecycleConfiguration><Rule><ID>r</ID><Filter><Prefix>app/</Prefix></Filter><Status>Enabled</Status>` +
		`<Expiration><Days>120</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>30</NoncurrentDays></NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`
	data, err := json.Marshal(map[string]any{"buckets": []any{map[string]any{
		"name": "logs", "versioning": "Enabled", "lifecycle_xml": xml, "objects": objs}}})
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := lifecycle.Parse([]byte(xml))
	if err != nil {
		b.Fatal(err)
	}
	snap := engine.Compile([]engine.Bucket{{Name: "logs", Versioning: "Enabled", Rules: cfg.Rules}}, lifecycle.RoundAWS).Snapshot()
	now := base.Add(objects * time.Hour / 2)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f, err := Open(filepath.Join(b.TempDir(), "f"), Options{Clock: func() time.Time { return now }})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.LoadFixture(context.Background(), bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := dailyrun.Run(context.Background(), dailyrun.Config{Store: f, Snapshot: snap, RunNow: now, Clock: time.Now})
		if err != nil || res.Status() != dailyrun.StatusOK || len(res.Actions) == 0 {
			b.Fatalf("pass: %v %s %d actions", err, res.Status(), len(res.Actions))
		}
		b.StopTimer()
		f.Close()
	}
}
