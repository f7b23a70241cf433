package manualjob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/internal/codectest"
)

func sp(s string) *string { return &s }
func ip(i int64) *int64   { return &i }

func sampleJob() *Job {
	return &Job{JobID: "f0000000-0000-4000-8000-000000000001", ScopeKey: ilmpath.ManualScopeDigest("photos", false), Bucket: "photos",
		Tier: sp("WARM"), OwnerID: "node-1", LeaseID: "f0000000-0000-4000-8000-000000000002", LeaseExpiresAtUnixNanos: 100,
		State: Running, CreatedAtUnixNanos: 10, UpdatedAtUnixNanos: 20,
		Report: []byte(`{"bucket":"photos","scanned":3}`), QueueSnapshot: []byte(`{"queued":0}`)}
}

func TestDecodeJob(t *testing.T) {
	j := sampleJob()
	key := ilmpath.ManualJobKey(j.JobID)
	good := j.Encode()
	mut := func(f func(*Job)) []byte { c := *j; f(&c); return c.Encode() }
	inner := j.EncodeInner()
	codectest.Run(t, []codectest.Case{
		{"valid running", key, good, nil},
		{"valid terminal with optional members", key, mut(func(c *Job) {
			c.State, c.CompletedAtUnixNanos, c.ScanCompleted, c.MaxObjects, c.Error = Partial, ip(30), true, new(uint64), sp("tier offline")
			c.MaxDuration, c.Tier = []byte(`{"secs":60,"nanos":0}`), nil
		}), nil},
		{"malformed", key, good[:len(good)-1], envelope.ErrMalformed},
		{"trailing bytes", key, append(append([]byte{}, good...), " x"...), envelope.ErrMalformed},
		{"wrong schema", key, []byte(strings.Replace(string(good), JobSchema, "rustfs-manual-transition-job-v2", 1)), envelope.ErrSchema},
		{"bad checksum", key, []byte(strings.Replace(string(good), `"scanned":3`, `"scanned":4`, 1)), envelope.ErrChecksum},
		{"checksum not hex", key, []byte(strings.Replace(string(good), envelope.SHA256Hex(inner), strings.Repeat("Z", 64), 1)), envelope.ErrChecksum},
		{"unknown outer field", key, []byte(strings.Replace(string(good), `{"schema"`, `{"x":1,"schema"`, 1)), envelope.ErrUnknownField},
		{"unknown inner field", key, codectest.SealEdited(JobSchema, "job", inner, `{"job_id"`, `{"x":1,"job_id"`), envelope.ErrUnknownField},
		{"duplicate field", key, codectest.SealEdited(JobSchema, "job", inner, `"bucket":"photos"`, `"bucket":"photos","bucket":"photos"`), envelope.ErrDuplicateField},
		{"missing tier", key, codectest.SealEdited(JobSchema, "job", inner, `"tier":"WARM",`, ``), envelope.ErrMissingField},
		{"missing owner", key, codectest.SealEdited(JobSchema, "job", inner, `"owner_id":"node-1",`, ``), envelope.ErrMissingField},
		{"nil job id", ilmpath.ManualJobKey(envelope.NilUUID), mut(func(c *Job) { c.JobID = envelope.NilUUID }), envelope.ErrNilUUID},
		{"uppercase lease id", key, mut(func(c *Job) { c.LeaseID = strings.ToUpper(c.LeaseID) }), envelope.ErrWrongType},
		{"unknown state", key, mut(func(c *Job) { c.State = "paused" }), envelope.ErrIllegalState},
		{"running with completion time", key, mut(func(c *Job) { c.CompletedAtUnixNanos = ip(30) }), envelope.ErrIllegalState},
		{"report not an object", key, codectest.SealEdited(JobSchema, "job", inner, `"report":{"bucket":"photos","scanned":3}`, `"report":[]`), envelope.ErrWrongType},
		{"scope key not a digest", key, mut(func(c *Job) { c.ScopeKey = "photos" }), envelope.ErrIdentity},
		{"empty bucket", key, mut(func(c *Job) { c.Bucket = "" }), envelope.ErrIdentity},
		{"uppercase alias path", strings.Replace(key, "f0/00/f0", "F0/00/F0", 1), good, envelope.ErrPath},
		{"wrong shard", strings.Replace(key, "/f0/00/", "/00/f0/", 1), good, envelope.ErrPath},
		{"too large", key, append(append([]byte{}, good...), make([]byte, ilmpath.MaxManualJobSize)...), envelope.ErrTooLarge},
	}, func(k string, b []byte) ([]byte, error) {
		r, err := DecodeJob(k, b)
		if err != nil {
			return nil, err
		}
		return r.Encode(), nil
	})
}

func sampleScope() *Scope {
	return &Scope{Schema: JobSchema, ScopeKey: ilmpath.ManualScopeDigest("photos", false), JobID: "f0000000-0000-4000-8000-000000000001",
		LeaseID: "f0000000-0000-4000-8000-000000000002", OwnerID: "node-1", Bucket: "photos", Tier: sp("WARM"),
		LeaseExpiresAtUnixNanos: 100, UpdatedAtUnixNanos: 20}
}

func TestDecodeScope(t *testing.T) {
	s := sampleScope()
	key := ilmpath.ManualScopeKey(s.ScopeKey)
	good := string(s.Encode())
	mut := func(f func(*Scope)) []byte { c := *s; f(&c); return c.Encode() }
	codectest.Run(t, []codectest.Case{
		{"valid", key, []byte(good), nil},
		{"valid dry run without tier", ilmpath.ManualScopeKey(ilmpath.ManualScopeDigest("photos", true)), mut(func(c *Scope) {
			c.DryRun, c.Tier, c.ScopeKey = true, nil, ilmpath.ManualScopeDigest("photos", true)
		}), nil},
		{"malformed", key, []byte(good[:10]), envelope.ErrMalformed},
		{"wrong schema", key, mut(func(c *Scope) { c.Schema = TaskSchema }), envelope.ErrSchema},
		{"unknown field", key, []byte(strings.Replace(good, `{"schema"`, `{"x":1,"schema"`, 1)), envelope.ErrUnknownField},
		{"missing updated_at", key, []byte(strings.Replace(good, `,"updated_at_unix_nanos":20`, ``, 1)), envelope.ErrMissingField},
		{"dry_run not a bool", key, []byte(strings.Replace(good, `"dry_run":false`, `"dry_run":"no"`, 1)), envelope.ErrWrongType},
		{"nil lease id", key, mut(func(c *Scope) { c.LeaseID = envelope.NilUUID }), envelope.ErrNilUUID},
		{"empty owner", key, mut(func(c *Scope) { c.OwnerID = "" }), envelope.ErrIdentity},
		{"scope key of the other run mode", key, mut(func(c *Scope) { c.DryRun = true }), envelope.ErrIdentity},
		{"stored under another digest", ilmpath.ManualScopeKey(ilmpath.ManualScopeDigest("videos", false)), []byte(good), envelope.ErrPath},
		{"too large", key, append([]byte(good), make([]byte, ilmpath.MaxManualJobSize)...), envelope.ErrTooLarge},
	}, func(k string, b []byte) ([]byte, error) {
		r, err := DecodeScope(k, b)
		if err != nil {
			return nil, err
		}
		return r.Encode(), nil
	})
}

func sampleTask() *Task {
	return &Task{Schema: TaskSchema, JobID: "f0000000-0000-4000-8000-000000000001", TaskKey: ilmpath.ManualTaskDigest("photos", "cat.jpg", ""),
		Bucket: "photos", Object: "cat.jpg", StorageClass: "WARM", QueuedAtUnixNanos: 50}
}

func TestDecodeTask(t *testing.T) {
	tk := sampleTask()
	key := ilmpath.ManualTaskKey(tk.JobID, tk.TaskKey)
	good := tk.Encode()
	inner := tk.EncodeInner()
	mut := func(f func(*Task)) []byte { c := *tk; f(&c); return c.Encode() }
	codectest.Run(t, []codectest.Case{
		{"valid", key, good, nil},
		{"valid with version identity", key, mut(func(c *Task) {
			c.VersionID, c.ETag, c.ModTimeUnixNanos, c.Size, c.IsLatest = sp("11111111-2222-4333-8444-555555555555"), sp("abc"), ip(7), ip(42), new(bool)
		}), nil},
		{"wrong envelope schema", key, []byte(strings.Replace(string(good), `"schema":"`+TaskSchema+`","content`, `"schema":"`+ResultSchema+`","content`, 1)), envelope.ErrSchema},
		{"wrong inner schema", key, mut(func(c *Task) { c.Schema = JobSchema }), envelope.ErrSchema},
		{"bad checksum", key, []byte(strings.Replace(string(good), `"queued_at_unix_nanos":50`, `"queued_at_unix_nanos":51`, 1)), envelope.ErrChecksum},
		{"unknown inner field", key, codectest.SealEdited(TaskSchema, "record", inner, `{"schema"`, `{"x":1,"schema"`), envelope.ErrUnknownField},
		{"missing version_id", key, codectest.SealEdited(TaskSchema, "record", inner, `"version_id":null,`, ``), envelope.ErrMissingField},
		{"nil version id", key, mut(func(c *Task) { c.VersionID = sp(envelope.NilUUID) }), envelope.ErrNilUUID},
		{"negative size", key, mut(func(c *Task) { c.Size = ip(-1) }), envelope.ErrIdentity},
		{"empty storage class", key, mut(func(c *Task) { c.StorageClass = "" }), envelope.ErrIdentity},
		{"task key not a digest", key, mut(func(c *Task) { c.TaskKey = "cat" }), envelope.ErrIdentity},
		{"stored under another job", ilmpath.ManualTaskKey("f0000000-0000-4000-8000-000000000009", tk.TaskKey), good, envelope.ErrPath},
		{"too large", key, append(append([]byte{}, good...), make([]byte, ilmpath.MaxManualTaskSize)...), envelope.ErrTooLarge},
	}, func(k string, b []byte) ([]byte, error) {
		r, err := DecodeTask(k, b)
		if err != nil {
			return nil, err
		}
		return r.Encode(), nil
	})
}

func sampleResult() *Result {
	return &Result{Schema: ResultSchema, JobID: "f0000000-0000-4000-8000-000000000001", TaskKey: ilmpath.ManualTaskDigest("photos", "cat.jpg", ""),
		Result: OutcomeCompleted, CompletedAtUnixNanos: 60}
}

func TestDecodeResult(t *testing.T) {
	r := sampleResult()
	key := ilmpath.ManualResultKey(r.JobID, r.TaskKey)
	good := r.Encode()
	inner := r.EncodeInner()
	mut := func(f func(*Result)) []byte { c := *r; f(&c); return c.Encode() }
	codectest.Run(t, []codectest.Case{
		{"valid completed", key, good, nil},
		{"valid tier failure", key, mut(func(c *Result) { c.Result, c.FailureReason = OutcomeTierFailure, sp("slow_down") }), nil},
		{"wrong inner schema", key, mut(func(c *Result) { c.Schema = TaskSchema }), envelope.ErrSchema},
		{"bad checksum", key, []byte(strings.Replace(string(good), `"completed_at_unix_nanos":60`, `"completed_at_unix_nanos":61`, 1)), envelope.ErrChecksum},
		{"unknown inner field", key, codectest.SealEdited(ResultSchema, "record", inner, `{"schema"`, `{"x":1,"schema"`), envelope.ErrUnknownField},
		{"missing result", key, codectest.SealEdited(ResultSchema, "record", inner, `"result":"completed",`, ``), envelope.ErrMissingField},
		{"unknown outcome", key, mut(func(c *Result) { c.Result = "skipped" }), envelope.ErrIllegalState},
		{"unknown failure reason", key, mut(func(c *Result) { c.Result, c.FailureReason = OutcomeTierFailure, sp("exploded") }), envelope.ErrIllegalState},
		{"completion time not an integer", key, codectest.SealEdited(ResultSchema, "record", inner, `"completed_at_unix_nanos":60`, `"completed_at_unix_nanos":"60"`), envelope.ErrWrongType},
		{"nil job id", ilmpath.ManualResultKey(envelope.NilUUID, r.TaskKey), mut(func(c *Result) { c.JobID = envelope.NilUUID }), envelope.ErrNilUUID},
		{"task key not a digest", key, mut(func(c *Result) { c.TaskKey = "cat" }), envelope.ErrIdentity},
		{"stored as a task", ilmpath.ManualTaskKey(r.JobID, r.TaskKey), good, envelope.ErrPath},
		{"too large", key, append(append([]byte{}, good...), make([]byte, ilmpath.MaxManualResultSize)...), envelope.ErrTooLarge},
	}, func(k string, b []byte) ([]byte, error) {
		d, err := DecodeResult(k, b)
		if err != nil {
			return nil, err
		}
		return d.Encode(), nil
	})
}

func TestJobStateEdges(t *testing.T) {
	if !Running.CanTransitionTo(Cancelled) || Running.CanTransitionTo(Running) || Completed.CanTransitionTo(Running) || Running.CanTransitionTo("paused") {
		t.Fatal("job edges: only Running → terminal is legal")
	}
}

// TestFixturesRoundTrip decodes every canonical manual-transition fixture
// and re-encodes it byte for byte; the corrupt ones are classified in
// core/journal.
func TestFixturesRoundTrip(t *testing.T) {
	root := "../../testdata/ilm/pool-a"
	decoders := map[string]func(string, []byte) ([]byte, error){
		"jobs": func(k string, b []byte) ([]byte, error) {
			r, err := DecodeJob(k, b)
			if err != nil {
				return nil, err
			}
			if r.LegacyReportChecksum {
				return b, nil // re-encoding writes the current checksum
			}
			return r.Encode(), nil
		},
		"scopes": func(k string, b []byte) ([]byte, error) {
			r, err := DecodeScope(k, b)
			if err != nil {
				return nil, err
			}
			return r.Encode(), nil
		},
		"tasks": func(k string, b []byte) ([]byte, error) {
			r, err := DecodeTask(k, b)
			if err != nil {
				return nil, err
			}
			return r.Encode(), nil
		},
		"results": func(k string, b []byte) ([]byte, error) {
			r, err := DecodeResult(k, b)
			if err != nil {
				return nil, err
			}
			return r.Encode(), nil
		},
	}
	good := map[string]int{}
	for ns, dec := range decoders {
		_ = filepath.WalkDir(filepath.Join(root, "ilm/manual-transition", ns), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			enc, err := dec(filepath.ToSlash(rel), b)
			if err != nil {
				var de *envelope.DecodeError
				if !errors.As(err, &de) {
					t.Errorf("%s: untyped error %v", rel, err)
				}
				return nil
			}
			if string(enc) != string(b) {
				t.Errorf("%s: re-encoding differs", rel)
			}
			good[ns]++
			return nil
		})
	}
	if good["jobs"] != 10 || good["scopes"] != 8 || good["tasks"] != 3 || good["results"] != 1 {
		t.Fatalf("valid fixtures %v; want 10 jobs, 8 scopes, 3 tasks, 1 result (run go test ./core/journal -run TestFixturesClassify -update)", good)
	}
}

func FuzzDecodeManual(f *testing.F) {
	_ = filepath.WalkDir("../../testdata/ilm/pool-a/ilm/manual-transition", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeJob("k", b)
		_, _ = DecodeScope("k", b)
		_, _ = DecodeTask("k", b)
		_, _ = DecodeResult("k", b)
	})
}

// TestRustFSValidationRules: each consistency rule RustFS's validate()
// applies to a job or scope admission refuses exactly one record here, and
// the two accepted scope-key derivations are reported.
func TestRustFSValidationRules(t *testing.T) {
	tier := "warm"
	base := Job{JobID: "aa000000-0000-4000-8000-000000000001", Bucket: "media", Prefix: "p/", Tier: &tier, OwnerID: "node-1",
		LeaseID: "ab000000-0000-4000-8000-000000000001", LeaseExpiresAtUnixNanos: 10, State: Running, CreatedAtUnixNanos: 1, UpdatedAtUnixNanos: 2,
		Report: []byte(`{}`), QueueSnapshot: []byte(`{}`)}
	base.ScopeKey = ilmpath.ManualScopeDigest("media", false)
	done := int64(3)
	for _, tc := range []struct {
		name   string
		mut    func(*Job)
		format ScopeKeyFormat // "" = refused
	}{
		{"current scope key", func(*Job) {}, ScopeKeyCurrent},
		{"legacy scope key", func(j *Job) { j.ScopeKey = ilmpath.ManualScopeLegacyDigest("media", "p/", &tier, false) }, ScopeKeyLegacy},
		{"legacy key of another tier spelling is still upper-cased", func(j *Job) {
			up := "WARM"
			j.ScopeKey = ilmpath.ManualScopeLegacyDigest("media", "p/", &up, false)
		}, ScopeKeyLegacy},
		{"dry-run key on a real run", func(j *Job) { j.ScopeKey = ilmpath.ManualScopeDigest("media", true) }, ""},
		{"empty scope key", func(j *Job) { j.ScopeKey = "" }, ""},
		{"blank owner", func(j *Job) { j.OwnerID = " \t" }, ""},
		{"running job with a completion time", func(j *Job) { j.CompletedAtUnixNanos = &done }, ""},
		{"cancelled without cancel_requested", func(j *Job) { j.State, j.CompletedAtUnixNanos = Cancelled, &done }, ""},
		{"cancelled with cancel_requested", func(j *Job) { j.State, j.CompletedAtUnixNanos, j.CancelRequested = Cancelled, &done, true }, ScopeKeyCurrent},
	} {
		j := base
		tc.mut(&j)
		got, err := DecodeJob(ilmpath.ManualJobKey(j.JobID), j.Encode())
		switch {
		case tc.format == "" && err == nil:
			t.Errorf("%s: accepted, want refused", tc.name)
		case tc.format != "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.format != "" && got.ScopeKeyFormat != tc.format:
			t.Errorf("%s: scope key format %q, want %q", tc.name, got.ScopeKeyFormat, tc.format)
		}
		s := Scope{Schema: JobSchema, ScopeKey: j.ScopeKey, JobID: j.JobID, LeaseID: j.LeaseID, OwnerID: j.OwnerID, Bucket: j.Bucket,
			Prefix: j.Prefix, Tier: j.Tier, LeaseExpiresAtUnixNanos: 10, UpdatedAtUnixNanos: 2}
		if j.ScopeKey == "" || !envelope.IsSHA256Hex(j.ScopeKey) {
			continue // no scope path exists for it
		}
		gs, err := DecodeScope(ilmpath.ManualScopeKey(s.ScopeKey), s.Encode())
		scopeOK := tc.format != "" || tc.name == "running job with a completion time" || tc.name == "cancelled without cancel_requested"
		switch {
		case scopeOK && err != nil:
			t.Errorf("scope %s: refused: %v", tc.name, err)
		case !scopeOK && err == nil:
			t.Errorf("scope %s: accepted as %q, want refused", tc.name, gs.KeyFormat)
		}
	}
}
