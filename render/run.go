package render

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
)

// RunReport is `ilmctl run -o json`. Field names are a stable interface.
type RunReport struct {
	Status          string    `json:"status"`
	Heartbeat       string    `json:"heartbeat"`
	RunNow          time.Time `json:"run_now"`
	DryRun          bool      `json:"dry_run"`
	DurationSeconds float64   `json:"duration_seconds"`
	Errors          int       `json:"errors"`
	// BytesFreed is what the pass freed (a dry run: would free): the
	// sizes of the versions its DONE (DRY_RUN) deletes remove for good.
	// A delete marker added over a version frees nothing yet.
	BytesFreed int64 `json:"bytes_freed"`
	// BytesHeld is what Object Lock kept from being freed: the versions of
	// SKIPPED_OBJECT_LOCK actions, and in a dry run the held ones.
	BytesHeld      int64               `json:"bytes_held"`
	SubscribeError string              `json:"subscribe_error,omitempty"`
	BucketErrors   []BucketErrorReport `json:"bucket_errors"`
	// AmbiguousKeys counts the notices of kind ambiguous_layout.
	AmbiguousKeys int            `json:"ambiguous_keys"`
	Notices       []NoticeReport `json:"notices"`
	Shards        []ShardReport  `json:"shards"`
	Buckets       []BucketReport `json:"buckets"`
	Actions       []ActionReport `json:"actions"`
}

// BucketErrorReport is one engine.BucketError: a bucket whose lifecycle
// configuration was rejected; it gets no lifecycle action this pass.
type BucketErrorReport struct {
	Bucket string `json:"bucket"`
	Error  string `json:"error"`
}

// NoticeReport is something the pass saw and deliberately left alone,
// reported once per pass: kind ambiguous_layout is a key whose entries do
// not name one entry per version ID (it got no action); kind
// transition_not_executed is a Transition or NoncurrentVersionTransition
// of an enabled rule, which ilmctl does not run; kind
// conditional_delete_unproven is an s3:// pass without --check-cas, whose
// deletes rely on an If-Match the server was not shown to honour. A notice
// about a key has shard and key; one about a bucket's configuration has
// rule_id and action instead; one about the pass has an empty bucket.
type NoticeReport struct {
	Kind   string `json:"kind"`
	Shard  *int   `json:"shard,omitempty"`
	Bucket string `json:"bucket"`
	Key    string `json:"key,omitempty"`
	RuleID string `json:"rule_id,omitempty"`
	Action string `json:"action,omitempty"`
	Reason string `json:"reason"`
}

// NewNoticeReport converts one notice.
func NewNoticeReport(n dailyrun.Notice) NoticeReport {
	nr := NoticeReport{Kind: n.Kind.String(), Bucket: n.Bucket, Key: n.Key, RuleID: n.RuleID, Action: n.Action, Reason: n.Reason}
	if n.Key != "" {
		shard := n.Shard
		nr.Shard = &shard
	}
	return nr
}

// ShardReport is one shard's row. Lags are seconds, null when cold. Each
// *_ns field (Unix nanoseconds, as the cursor files keep them) has a twin
// in RFC 3339 named as in ShardPlanReport: cursor, last_walked.
type ShardReport struct {
	Shard             int              `json:"shard"`
	Status            string           `json:"status"`
	Error             string           `json:"error,omitempty"`
	Recovery          string           `json:"recovery,omitempty"`
	Walk              string           `json:"walk,omitempty"`
	EventsScanned     int64            `json:"events_scanned"`
	Matches           int64            `json:"matches"`
	MatchesBytes      int64            `json:"matches_bytes"`
	Pending           int64            `json:"pending"`
	PendingBytes      int64            `json:"pending_bytes"`
	Dispatched        map[string]int64 `json:"dispatched"`
	DispatchedBytes   map[string]int64 `json:"dispatched_bytes"`
	BytesFreed        int64            `json:"bytes_freed"`
	CursorTsNs        int64            `json:"cursor_ts_ns"`
	Cursor            *time.Time       `json:"cursor"` // CursorTsNs in RFC 3339; null when 0
	CursorSaved       bool             `json:"cursor_saved"`
	CursorLagSeconds  *float64         `json:"cursor_lag_seconds"`
	WalkerAgeSeconds  *float64         `json:"walker_age_seconds"`
	LastWalkedNs      int64            `json:"last_walked_ns"`
	LastWalked        *time.Time       `json:"last_walked"` // LastWalkedNs in RFC 3339; null when 0
	Truncated         bool             `json:"truncated"`
	LimiterWaitSecond float64          `json:"limiter_wait_seconds"`
	// WalkKeys, WalkBucketsDone and WalkBuckets are the shard's walk
	// progress (docs/design/daily-run.md#walk-progress): its keys the walk
	// listed this pass, and of the buckets the walk covers those done,
	// a continued recovery walk's earlier passes included; 0 without a
	// walk.
	WalkKeys        int64 `json:"walk_keys"`
	WalkBucketsDone int   `json:"walk_buckets_done"`
	WalkBuckets     int   `json:"walk_buckets"`
	// WalkSaved says the shard's recovery walk stopped short and saved its
	// position, which the next pass continues; WalkResumedFrom, where this
	// pass continued an earlier one's (null when it did not).
	WalkSaved       bool             `json:"walk_saved"`
	WalkResumedFrom *WalkPointReport `json:"walk_resumed_from"`
}

// WalkPointReport is where a continued recovery walk picked up: the first
// bucket its saved position had not finished and, in it, the last key
// whose deletes had all completed ("" from the bucket's first key);
// uploads when only the bucket's incomplete uploads were left.
type WalkPointReport struct {
	Bucket  string `json:"bucket"`
	After   string `json:"after"`
	Uploads bool   `json:"uploads"`
}

// BucketReport counts dispatch outcomes per bucket, rule and action kind,
// with the bytes beside each count (the target versions' sizes; uploads
// count 0) and the bytes its DONE (DRY_RUN) deletes free.
type BucketReport struct {
	Bucket     string           `json:"bucket"`
	RuleID     string           `json:"rule_id"`
	Kind       string           `json:"kind"`
	Outcomes   map[string]int64 `json:"outcomes"`
	Bytes      map[string]int64 `json:"bytes"`
	BytesFreed int64            `json:"bytes_freed"`
}

// ActionReport is one dispatched (or, in a dry run, would-be) action. Due
// is null for actions due as soon as found.
type ActionReport struct {
	Shard     int        `json:"shard"`
	Source    string     `json:"source"`
	Bucket    string     `json:"bucket"`
	Key       string     `json:"key"`
	VersionID string     `json:"version_id,omitempty"`
	UploadID  string     `json:"upload_id,omitempty"`
	Kind      string     `json:"kind"`
	RuleID    string     `json:"rule_id"`
	Due       *time.Time `json:"due"`
	Outcome   string     `json:"outcome"`
	Error     string     `json:"error,omitempty"`
	// Size is the target version's size in bytes (0 for a delete marker
	// or an upload); BytesFreed what the delete frees (0 when it only adds
	// a delete marker).
	Size       int64 `json:"size"`
	BytesFreed int64 `json:"bytes_freed"`
	// Held says the pass saw the target under Object Lock: the store
	// skips its delete (SKIPPED_OBJECT_LOCK; a dry run: would skip).
	Held bool `json:"held,omitempty"`
}

// NewRunReport converts a pass result.
func NewRunReport(r *dailyrun.Result, bucketErrs []engine.BucketError) RunReport {
	rep := RunReport{
		Status: r.Status().String(), Heartbeat: r.Heartbeat(), RunNow: r.RunNow.UTC(), DryRun: r.DryRun,
		DurationSeconds: r.Duration.Seconds(), Errors: r.Errors(), SubscribeError: errString(r.SubscribeErr),
		BucketErrors: []BucketErrorReport{}, Shards: []ShardReport{}, Buckets: []BucketReport{}, Actions: []ActionReport{},
	}
	for _, be := range bucketErrs {
		rep.BucketErrors = append(rep.BucketErrors, BucketErrorReport{Bucket: be.Bucket, Error: errString(be.Err)})
	}
	rep.Notices = []NoticeReport{}
	for _, n := range r.Notices {
		rep.Notices = append(rep.Notices, NewNoticeReport(n))
	}
	rep.AmbiguousKeys = r.AmbiguousKeys()
	seconds := func(d time.Duration, ok bool) *float64 {
		if !ok {
			return nil
		}
		s := d.Seconds()
		return &s
	}
	for _, s := range r.Shards {
		rep.Shards = append(rep.Shards, ShardReport{
			Shard: s.Shard, Status: s.Status.String(), Error: errString(s.Err), Recovery: s.Recovery.String(), Walk: s.Walk.String(),
			EventsScanned: s.EventsScanned, Matches: s.Matches, MatchesBytes: s.MatchBytes, Pending: s.Pending, PendingBytes: s.PendingBytes,
			Dispatched: outcomeCounts(s.Outcomes), DispatchedBytes: outcomeCounts(s.OutcomeBytes), BytesFreed: s.BytesFreed,
			CursorTsNs: s.Cursor.TsNs, Cursor: nsTime(s.Cursor.TsNs), CursorSaved: s.CursorSaved,
			CursorLagSeconds: seconds(r.CursorLag(s)), WalkerAgeSeconds: seconds(r.WalkerAge(s)),
			LastWalkedNs: s.Cursor.LastWalkedNs, LastWalked: nsTime(s.Cursor.LastWalkedNs), Truncated: s.Truncated, LimiterWaitSecond: s.LimiterWait.Seconds(),
			WalkKeys: s.WalkKeys, WalkBucketsDone: s.WalkBucketsDone, WalkBuckets: s.WalkBuckets,
			WalkSaved: s.WalkSaved, WalkResumedFrom: walkPoint(s.WalkResumedFrom),
		})
	}
	for _, s := range r.Shards {
		rep.BytesFreed += s.BytesFreed
		rep.BytesHeld += s.HeldBytes
	}
	for _, a := range r.Actions {
		rep.Actions = append(rep.Actions, NewActionReport(a))
	}
	for _, b := range r.Buckets {
		rep.Buckets = append(rep.Buckets, BucketReport{Bucket: b.Bucket, RuleID: b.RuleID, Kind: string(b.Kind),
			Outcomes: outcomeCounts(b.Outcomes), Bytes: outcomeCounts(b.Bytes), BytesFreed: b.BytesFreed})
	}
	return rep
}

func walkPoint(p *dailyrun.WalkPoint) *WalkPointReport {
	if p == nil {
		return nil
	}
	return &WalkPointReport{Bucket: p.Bucket, After: p.After, Uploads: p.Uploads}
}

// outcomeCounts is a count (or byte sum) by outcome with the outcomes
// spelled as in JSON; never nil, so JSON shows {} rather than null.
func outcomeCounts(m map[filer.Outcome]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for o, n := range m {
		out[o.String()] = n
	}
	return out
}

// errString is err's message, "" for nil (omitted from JSON).
func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// NewActionReport converts one action.
func NewActionReport(a dailyrun.Action) ActionReport {
	ar := ActionReport{Shard: a.Shard, Source: a.Source.String(), Bucket: a.Bucket, Key: a.Key, VersionID: a.VersionID,
		UploadID: a.UploadID, Kind: string(a.Kind), RuleID: a.RuleID, Outcome: a.Outcome.String(), Error: errString(a.Err),
		Size: a.Size, BytesFreed: a.BytesFreed, Held: a.Held}
	if !a.Due.IsZero() {
		d := a.Due.UTC()
		ar.Due = &d
	}
	return ar
}

var dispatchColumns = []string{
	string(filer.OutcomeDone), string(filer.OutcomeNoopResolved), string(filer.OutcomeSkippedObjectLock),
	string(filer.OutcomeRetryLater), string(filer.OutcomeBlocked), string(filer.OutcomeStuck), string(dailyrun.OutcomeError),
}

// outcomeColumns are the outcome count columns: the filer's outcomes, or
// DRY_RUN alone for a dry run.
func outcomeColumns(dryRun bool) []string {
	if dryRun {
		return []string{string(dailyrun.OutcomeDryRun)}
	}
	return dispatchColumns
}

// failedOutcomes are the outcomes that halt a shard; the default table
// counts them in one FAILED column, -o wide one column each.
var failedOutcomes = []string{
	string(filer.OutcomeRetryLater), string(filer.OutcomeBlocked), string(filer.OutcomeStuck), string(dailyrun.OutcomeError),
}

// outcomeCounter is a table's outcome count columns: their headers and
// how to fill them from a row's counts.
type outcomeCounter struct {
	header []string
	counts func(map[string]int64) []string
}

// newOutcomeCounter picks the outcome columns: DRY_RUN alone for a dry
// run; otherwise every outcome with -o wide, or the ones that complete
// and FAILED for the rest.
func newOutcomeCounter(dryRun, wide bool) outcomeCounter {
	cols := outcomeColumns(dryRun)
	if dryRun || wide {
		return outcomeCounter{header: cols, counts: func(m map[string]int64) []string {
			out := make([]string, len(cols))
			for i, o := range cols {
				out[i] = itoa(m[o])
			}
			return out
		}}
	}
	done := []string{string(filer.OutcomeDone), string(filer.OutcomeNoopResolved), string(filer.OutcomeSkippedObjectLock)}
	// Short labels keep the default tables narrow; -o wide and JSON spell
	// each outcome in full.
	header := []string{"DONE", "NOOP", "LOCKED", "FAILED"}
	return outcomeCounter{header: header, counts: func(m map[string]int64) []string {
		out := make([]string, 0, len(done)+1)
		for _, o := range done {
			out = append(out, itoa(m[o]))
		}
		var failed int64
		for _, o := range failedOutcomes {
			failed += m[o]
		}
		return append(out, itoa(failed))
	}}
}

// RunTables writes what an operator acts on: a one-line summary of the
// pass (status, deletes by outcome, bytes freed, rejected buckets,
// notices; the shards counted in its title), the shards that dispatched
// anything or did not finish, the outcomes per bucket and rule, for a dry
// run every action it would dispatch, and why each unfinished shard
// stopped. The default stays short of width columns: the outcomes that
// halt a shard are summed in FAILED; EVENTS, MATCHES, PENDING,
// WALKER_AGE, KIND, BYTES, a dry run's RULE_ID, SIZE and DUE and quiet
// shards are left out; long bucket names, rule IDs and keys are
// shortened in the middle and version IDs to a unique prefix. wide (-o
// wide) shows every shard and every column, identifiers in full, however
// wide that is.
func RunTables(w io.Writer, rep RunReport, wide bool, width int) error {
	oc := newOutcomeCounter(rep.DryRun, wide)
	if err := runSummary(w, rep, oc, wide); err != nil {
		return err
	}
	if err := shardTable(w, rep, oc, wide); err != nil {
		return err
	}
	if err := bucketTable(w, rep, oc, wide, width); err != nil {
		return err
	}
	if rep.DryRun {
		if err := wouldDispatchTable(w, rep, wide, width); err != nil {
			return err
		}
	}
	sep := "\n"
	for _, e := range rep.Shards {
		if e.Error != "" {
			if _, err := fmt.Fprintf(w, "%sshard %02d %s: %s%s\n", sep, e.Shard, e.Status, Cell(e.Error), walkLeft(e)); err != nil {
				return err
			}
			sep = ""
		}
	}
	return nil
}

// walkLeft says, on a line of its own under why a shard stopped, how far
// its unfinished walk got and whether the next pass continues it: "" when
// the shard's walk finished or it did not walk.
func walkLeft(s ShardReport) string {
	if s.WalkBuckets == 0 || s.WalkBucketsDone == s.WalkBuckets {
		return ""
	}
	next := "the next walk starts over"
	if s.WalkSaved {
		next = "position saved for the next pass"
	}
	return fmt.Sprintf("\n  %s walk: %d of %d buckets done, %s", dash(s.Walk), s.WalkBucketsDone, s.WalkBuckets, next)
}

// wouldDispatchTable lists a dry run's actions by bucket and key: what
// would be deleted (VERSION: the version ID, an AbortMPU's upload ID) and
// how (KIND, "(held)" when Object Lock keeps the version, explained under
// the table); -o wide adds RULE_ID, SIZE and DUE.
func wouldDispatchTable(w io.Writer, rep RunReport, wide bool, width int) error {
	actions := append([]ActionReport(nil), rep.Actions...)
	sort.SliceStable(actions, func(i, j int) bool {
		if actions[i].Bucket != actions[j].Bucket {
			return actions[i].Bucket < actions[j].Bucket
		}
		return actions[i].Key < actions[j].Key
	})
	short := func(id string) string { return id }
	if !wide {
		ids := make([]string, 0, len(actions))
		for _, a := range actions {
			ids = append(ids, a.VersionID, a.UploadID)
		}
		short = ShortIDs(ids)
	}
	var rows [][]string
	held := false
	for _, a := range actions {
		target := short(a.VersionID)
		if a.UploadID != "" {
			target = short(a.UploadID)
			if wide {
				target = "upload:" + a.UploadID
			}
		}
		kind := a.Kind
		if a.Held {
			kind += " (held)"
			held = true
		}
		row := []string{a.Bucket, a.Key, dash(target), kind}
		if !wide {
			rows = append(rows, row)
			continue
		}
		due := "now"
		if a.Due != nil {
			due = a.Due.Format(time.RFC3339)
		}
		size := Bytes(a.Size)
		if a.UploadID != "" {
			size = "-" // an upload's parts are not sized by the listing
		}
		rows = append(rows, append(row, a.RuleID, size, due))
	}
	title := "\nWould dispatch (dry run: nothing deleted, no cursor moved)"
	var err error
	if wide {
		err = Table(w, title, []string{"BUCKET", "KEY", "VERSION_ID", "KIND", "RULE_ID", "SIZE", "DUE"}, rows)
	} else {
		header := []string{"BUCKET", "KEY", "VERSION", "KIND"}
		err = Table(w, title, header, FitRows(header, rows, width, 1, 0))
	}
	if err == nil && held {
		_, err = fmt.Fprintln(w, "(held): under legal hold or retention; the store keeps it\n(SKIPPED_OBJECT_LOCK) and FREED does not count it")
	}
	return err
}

// bucketTable is the outcomes per bucket and rule, with FREED, what the
// DONE (a dry run: DRY_RUN) deletes free for good. By default a real
// pass's outcomes are DONE, NOOP (NOOP_RESOLVED), LOCKED
// (SKIPPED_OBJECT_LOCK) and FAILED (the rest), so every outcome is
// counted, summed over the rule's action kinds. -o wide has a row per
// kind, each outcome, and BYTES, the size of the versions the DONE
// deletes reached.
func bucketTable(w io.Writer, rep RunReport, oc outcomeCounter, wide bool, width int) error {
	completed := string(filer.OutcomeDone)
	if rep.DryRun {
		completed = dailyrun.OutcomeDryRun.String()
	}
	var rows [][]string
	if wide {
		for _, b := range rep.Buckets {
			row := append([]string{b.Bucket, b.RuleID, b.Kind}, oc.counts(b.Outcomes)...)
			rows = append(rows, append(row, Bytes(b.Bytes[completed]), Bytes(b.BytesFreed)))
		}
		header := append(append([]string{"BUCKET", "RULE", "KIND"}, oc.header...), "BYTES", "FREED")
		return Table(w, "\nDispatched by bucket, rule and kind", header, rows)
	}
	type ruleKey struct{ bucket, rule string }
	var order []ruleKey
	sums := map[ruleKey]*BucketReport{}
	for _, b := range rep.Buckets {
		k := ruleKey{b.Bucket, b.RuleID}
		s, ok := sums[k]
		if !ok {
			s = &BucketReport{Outcomes: map[string]int64{}}
			sums[k] = s
			order = append(order, k)
		}
		for o, n := range b.Outcomes {
			s.Outcomes[o] += n
		}
		s.BytesFreed += b.BytesFreed
	}
	for _, k := range order {
		row := append([]string{k.bucket, k.rule}, oc.counts(sums[k].Outcomes)...)
		rows = append(rows, append(row, Bytes(sums[k].BytesFreed)))
	}
	header := append(append([]string{"BUCKET", "RULE"}, oc.header...), "FREED")
	return Table(w, "\nDispatched by bucket and rule (-o wide: by kind, with BYTES)", header, FitRows(header, rows, width, 1, 0))
}

// runSummary is the pass in one row, its shards counted in the title;
// FREED is what its deletes freed (a dry run: would free), REJECTED the
// buckets whose lifecycle configuration was rejected. A shard that did
// not end ok (halted, cancelled, incomplete or error: the heartbeat's
// errors=) "did not finish"; a shard another host holds (leased) is that
// host's, and is counted apart. -o wide adds the SHARDS, OK and HALTED
// columns.
func runSummary(w io.Writer, rep RunReport, oc outcomeCounter, wide bool) error {
	total := map[string]int64{}
	ok, leased := 0, 0
	for _, s := range rep.Shards {
		for o, n := range s.Dispatched {
			total[o] += n
		}
		switch s.Status {
		case dailyrun.StatusOK.String():
			ok++
		case dailyrun.StatusLeased.String():
			leased++
		}
	}
	halted := len(rep.Shards) - ok - leased
	header := []string{"STATUS"}
	row := []string{rep.Status}
	if wide {
		header = append(header, "SHARDS", "OK", "HALTED")
		row = append(row, strconv.Itoa(len(rep.Shards)), strconv.Itoa(ok), strconv.Itoa(halted))
	}
	header = append(append(header, oc.header...), "FREED", "REJECTED", "NOTICES")
	row = append(append(row, oc.counts(total)...), Bytes(rep.BytesFreed), strconv.Itoa(len(rep.BucketErrors)), strconv.Itoa(len(rep.Notices)))
	title := fmt.Sprintf("Pass over %d shards: all finished", len(rep.Shards))
	if halted > 0 {
		title = fmt.Sprintf("Pass over %d shards: %d did not finish", len(rep.Shards), halted)
	}
	if leased > 0 {
		title += fmt.Sprintf(", %d leased by another host", leased)
	}
	return Table(w, title, header, [][]string{row})
}

// shardTable lists the shards; by default only those that dispatched
// anything or did not finish, as the summary accounts for the others, and
// without EVENTS (events scanned), MATCHES, PENDING (matches not yet due),
// WALKER_AGE, WALK_KEYS (keys the walk listed) and BUCKETS (buckets done
// of the walk's, "-" without a walk); the lines after the tables say how
// far an unfinished shard's walk got.
func shardTable(w io.Writer, rep RunReport, oc outcomeCounter, wide bool) error {
	header := []string{"SHARD", "STATUS"}
	if wide {
		header = append(header, "EVENTS", "MATCHES", "PENDING")
	}
	header = append(append(header, oc.header...), "CURSOR_LAG")
	if wide {
		header = append(header, "WALKER_AGE")
	}
	header = append(header, "WALK")
	if wide {
		header = append(header, "WALK_KEYS", "BUCKETS")
	}
	var rows [][]string
	for _, s := range rep.Shards {
		if !wide && !shardActed(s) {
			continue
		}
		row := []string{fmt.Sprintf("%02d", s.Shard), s.Status}
		if wide {
			row = append(row, itoa(s.EventsScanned), itoa(s.Matches), itoa(s.Pending))
		}
		row = append(append(row, oc.counts(s.Dispatched)...), lag(s.CursorLagSeconds))
		if wide {
			row = append(row, lag(s.WalkerAgeSeconds))
		}
		row = append(row, dash(s.Walk))
		if wide {
			buckets := "-"
			if s.WalkBuckets > 0 {
				buckets = fmt.Sprintf("%d/%d", s.WalkBucketsDone, s.WalkBuckets)
			}
			row = append(row, itoa(s.WalkKeys), buckets)
		}
		rows = append(rows, row)
	}
	title := "\nShards"
	if !wide {
		title = fmt.Sprintf("\nShards that dispatched or did not finish (%d of %d; -o wide for all)", len(rows), len(rep.Shards))
	}
	return Table(w, title, header, rows)
}

// shardActed reports whether a shard belongs in the default table: it
// dispatched something, did not end ok, or dropped events.
func shardActed(s ShardReport) bool {
	if s.Status != dailyrun.StatusOK.String() || s.Truncated || s.Error != "" {
		return true
	}
	for _, n := range s.Dispatched {
		if n > 0 {
			return true
		}
	}
	return false
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func lag(sec *float64) string {
	if sec == nil {
		return "cold"
	}
	// To the nearest second: a cursor sits a nanosecond before an event,
	// and which of a pass's own deletes (stamped nanoseconds apart, in the
	// order they committed) holds it must not turn 1d into 23h59m.
	return Duration(time.Duration(math.Round(*sec)) * time.Second)
}
