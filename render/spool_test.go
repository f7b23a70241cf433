package render

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// A report whose actions went through the spool reads byte for byte as
// the same report with its actions in memory.
func TestJSONSpooledEqualsJSON(t *testing.T) {
	due := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, actions := range [][]dailyrun.Action{
		nil,
		{{Shard: 3, Source: "walker", Bucket: "logs", Key: "a<&>\"b", VersionID: "v1", Kind: lifecycle.ExpirationDays, RuleID: "r", Due: due, Outcome: "DONE"}},
		{{Shard: 1, Source: "replay", Bucket: "b", Key: "k", UploadID: "u", Kind: lifecycle.AbortMPU, Outcome: "ERROR", Err: errors.New("boom")},
			{Shard: 2, Source: "walker", Bucket: "b", Key: "k2\n", Kind: lifecycle.NoncurrentDays, Outcome: "DRY_RUN"}},
	} {
		res := &dailyrun.Result{RunNow: due, Shards: []dailyrun.ShardResult{{Shard: 1, Status: dailyrun.StatusOK}}, Actions: actions}
		var want bytes.Buffer
		if err := JSON(&want, NewRunReport(res, nil)); err != nil {
			t.Fatal(err)
		}
		sp, err := NewActionSpool(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			sp.Action(a)
		}
		res.Actions = nil
		var got bytes.Buffer
		if err := JSONSpooled(&got, NewRunReport(res, nil), sp); err != nil {
			t.Fatal(err)
		}
		if err := sp.Close(); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("spooled:\n%s\nin memory:\n%s", got.String(), want.String())
		}
	}
}
