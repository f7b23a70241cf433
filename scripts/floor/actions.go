package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ilmctl/ilmctl/core/filer"
)

// call is one LifecycleDelete a pass sent, as its -o jsonl action line
// records it (docs/json.md, `ilmctl run -o jsonl`).
type call struct {
	Shard     int    `json:"shard"`
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	VersionID string `json:"version_id"`
	UploadID  string `json:"upload_id"`
	Kind      string `json:"kind"`
	RuleID    string `json:"rule_id"`
	Outcome   string `json:"outcome"`
}

// sent reports whether an action's outcome is a server's answer: the pass
// made the call and the server decided it. BLOCKED is given without a
// call (client/seaweedfs/delete.go), DRY_RUN sends nothing, and an ERROR's
// call may never have reached the server.
func sent(outcome string) bool {
	switch filer.Outcome(outcome) {
	case filer.OutcomeDone, filer.OutcomeNoopResolved, filer.OutcomeSkippedObjectLock, filer.OutcomeRetryLater:
		return true
	}
	return false
}

// readCalls reads a pass's -o jsonl stream and returns the calls it sent,
// grouped by shard in the order each shard recorded them, and how many
// action lines it left out (not sent). A line that is not JSON, or an
// action without a bucket, key or kind, is an error naming the line.
func readCalls(r io.Reader) (byShard map[int][]call, skipped int, err error) {
	byShard = map[int][]call{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var a struct {
			Type string `json:"type"`
			call
		}
		if err := json.Unmarshal(line, &a); err != nil {
			return nil, 0, fmt.Errorf("line %d: not a run -o jsonl line: %v", n, err)
		}
		if a.Type != "action" {
			continue
		}
		if a.Bucket == "" || a.Key == "" || a.Kind == "" {
			return nil, 0, fmt.Errorf("line %d: action without bucket, key or kind", n)
		}
		if !sent(a.Outcome) {
			skipped++
			continue
		}
		byShard[a.Shard] = append(byShard[a.Shard], a.call)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	return byShard, skipped, nil
}
