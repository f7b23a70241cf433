package render

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ilmctl/ilmctl/core/dailyrun"
	"github.com/ilmctl/ilmctl/core/explain"
	"github.com/ilmctl/ilmctl/core/lifecycle"
)

// ExplainReport is `ilmctl explain -o json`. Field names are a stable
// interface.
type ExplainReport struct {
	Bucket            string    `json:"bucket"`
	Key               string    `json:"key"`
	Now               time.Time `json:"now"`
	Versioning        string    `json:"versioning"`
	ObjectLock        bool      `json:"object_lock"`
	DueRounding       string    `json:"due_rounding"`
	ExpiredMarkerDays string    `json:"expired_marker_days"`
	// ConfigurationError is the parser's verdict on a rejected lifecycle
	// configuration; NoConfiguration a bucket without one.
	ConfigurationError string `json:"configuration_error,omitempty"`
	NoConfiguration    bool   `json:"no_configuration"`
	// KeyError is why the key's entries could not be read exactly;
	// AmbiguousLayout marks the kind the pass skips with a notice.
	KeyError        string `json:"key_error,omitempty"`
	AmbiguousLayout bool   `json:"ambiguous_layout"`
	// AmbiguousSince is when a pass first found the key ambiguous, from
	// the shards' lists of ambiguous keys; omitted when no list holds it.
	AmbiguousSince *time.Time     `json:"ambiguous_since,omitempty"`
	Versions       []TargetReport `json:"versions"`
	Uploads        []TargetReport `json:"uploads"`
	Pass           StandingReport `json:"pass"`
}

// TargetReport is one version or incomplete upload.
type TargetReport struct {
	VersionID       string     `json:"version_id,omitempty"`
	UploadID        string     `json:"upload_id,omitempty"`
	Latest          bool       `json:"latest"`
	DeleteMarker    bool       `json:"delete_marker"`
	Size            int64      `json:"size"`
	Created         time.Time  `json:"created"`
	NoncurrentSince *time.Time `json:"noncurrent_since"`
	RetainUntil     *time.Time `json:"retain_until"`
	LegalHold       bool       `json:"legal_hold"`
	// Gone marks an upload no longer listed whose mpu_init event the next
	// pass still replays; Created is then the event's time.
	Gone     bool            `json:"gone"`
	Dispatch *DispatchReport `json:"dispatch"`
	Verdicts []VerdictReport `json:"verdicts"`
}

// DispatchReport is the action the pass chooses for a target. FoundBy is
// replay, walk or replay_and_walk: the ways a pass can find the action at
// all (a recovery walk finds every kind); Via is what the next pass does.
type DispatchReport struct {
	RuleID     string     `json:"rule_id"`
	Kind       string     `json:"kind"`
	Due        *time.Time `json:"due"`
	DueNow     bool       `json:"due_now"`
	Size       int64      `json:"size"`
	BytesFreed int64      `json:"bytes_freed"`
	FoundBy    string     `json:"found_by"`
	Held       string     `json:"held,omitempty"`
	Gone       string     `json:"gone,omitempty"`
	// NextPass says whether the next pass at --now dispatches it; Via
	// how (which walk, or the replay of which event) or why not.
	NextPass bool   `json:"next_pass"`
	Via      string `json:"via"`
}

// VerdictReport is one rule action's verdict.
type VerdictReport struct {
	RuleID    string         `json:"rule_id"`
	RuleIndex int            `json:"rule_index"`
	Action    string         `json:"action"`
	Outcome   string         `json:"outcome"`
	Reason    string         `json:"reason,omitempty"`
	Filter    *FilterReport  `json:"filter,omitempty"`
	Due       *time.Time     `json:"due"`
	DueMath   *DueMathReport `json:"due_math"`
	Detail    string         `json:"detail"`
	Chosen    bool           `json:"chosen"`
}

// FilterReport is the filter's answer; Failed is the predicate that did
// not hold ("none" when it selects the target).
type FilterReport struct {
	Matched bool   `json:"matched"`
	Failed  string `json:"failed"`
	Detail  string `json:"detail,omitempty"`
}

// DueMathReport is the arithmetic behind a due time: Base (from BaseFrom:
// creation, noncurrent_since, successor_creation, own_creation,
// upload_initiation, expiration_date, none) plus Days, rounded per
// Rounding.
type DueMathReport struct {
	Base     *time.Time `json:"base"`
	BaseFrom string     `json:"base_from"`
	Days     int        `json:"days"`
	Rounding string     `json:"rounding"`
}

// StandingReport is where the next pass stands for the key. Each *_ns
// field (Unix nanoseconds) has a twin in RFC 3339 without the suffix,
// null when the raw value is 0 or null.
type StandingReport struct {
	Shard int             `json:"shard"`
	Plan  ShardPlanReport `json:"plan"`
	// MetaLog is false on a store without one (s3://): every rule is
	// walked.
	MetaLog       bool         `json:"meta_log"`
	ReadUntilNs   int64        `json:"read_until_ns"`
	ReadUntil     *time.Time   `json:"read_until"`
	ScannedFromNs *int64       `json:"scanned_from_ns"`
	ScannedFrom   *time.Time   `json:"scanned_from"`
	LastEvent     *EventReport `json:"last_event"`
	PendingEvents int          `json:"pending_events"`
}

// ShardPlanReport is one shard's cursor and what the next pass does with
// it. Each *_ns field has a twin in RFC 3339, null when it is 0: cursor
// (of cursor_ts_ns), last_walked, replay_from.
type ShardPlanReport struct {
	Shard        int        `json:"shard"`
	CursorFound  bool       `json:"cursor_found"`
	CursorError  string     `json:"cursor_error,omitempty"`
	CursorTsNs   int64      `json:"cursor_ts_ns"`
	Cursor       *time.Time `json:"cursor"`
	LastWalkedNs int64      `json:"last_walked_ns"`
	LastWalked   *time.Time `json:"last_walked"`
	NextWalk     string     `json:"next_walk,omitempty"`
	Recovery     string     `json:"recovery,omitempty"`
	Replays      bool       `json:"replays"`
	ReplayFromNs int64      `json:"replay_from_ns"`
	ReplayFrom   *time.Time `json:"replay_from"`
}

// EventReport is the key's last meta-log event and where replay stands on
// it.
type EventReport struct {
	TsNs        int64           `json:"ts_ns"`
	Time        time.Time       `json:"time"`
	Type        string          `json:"type"`
	VersionID   string          `json:"version_id,omitempty"`
	UploadID    string          `json:"upload_id,omitempty"`
	Path        string          `json:"path,omitempty"`
	Shard       int             `json:"shard"`
	ShardPlan   ShardPlanReport `json:"shard_plan"`
	AfterCursor bool            `json:"after_cursor"`
}

// NewExplainReport converts an explanation.
func NewExplainReport(r *explain.Report) ExplainReport {
	out := ExplainReport{
		Bucket: r.Bucket, Key: r.Key, Now: r.Now, Versioning: versioningName(string(r.Versioning)), ObjectLock: r.ObjectLock,
		DueRounding: r.Rounding.String(), ExpiredMarkerDays: r.Markers.String(), ConfigurationError: r.ConfigError,
		NoConfiguration: r.NoConfiguration, KeyError: r.KeyError, AmbiguousLayout: r.Ambiguous,
		Versions: []TargetReport{}, Uploads: []TargetReport{},
	}
	if r.Listed != nil {
		since := time.Unix(0, r.Listed.FirstSeenNs).UTC()
		out.AmbiguousSince = &since
	}
	for _, t := range r.Versions {
		out.Versions = append(out.Versions, newTargetReport(t))
	}
	for _, t := range r.Uploads {
		out.Uploads = append(out.Uploads, newTargetReport(t))
	}
	p := r.Pass
	out.Pass = StandingReport{Shard: p.Shard, Plan: newShardPlanReport(p.Plan), MetaLog: p.MetaLog, ReadUntilNs: p.UntilNs, ReadUntil: nsTime(p.UntilNs), PendingEvents: p.Pending}
	if p.Scanned {
		from := p.ScannedFromNs
		out.Pass.ScannedFromNs = &from
		out.Pass.ScannedFrom = nsTime(from)
	}
	if e := p.LastEvent; e != nil {
		out.Pass.LastEvent = &EventReport{TsNs: e.TsNs, Time: time.Unix(0, e.TsNs).UTC(), Type: string(e.Type), VersionID: e.VersionID,
			UploadID: e.UploadID, Path: e.Path, Shard: e.Shard, ShardPlan: newShardPlanReport(e.Plan), AfterCursor: e.AfterCursor}
	}
	return out
}

func versioningName(v string) string {
	if v == "" {
		return "Off"
	}
	return v
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func nsTime(ns int64) *time.Time {
	if ns <= 0 {
		return nil
	}
	return timePtr(time.Unix(0, ns))
}

func newShardPlanReport(p dailyrun.ShardPlan) ShardPlanReport {
	out := ShardPlanReport{Shard: p.Shard, CursorFound: p.Found, CursorTsNs: p.Cursor.TsNs, Cursor: nsTime(p.Cursor.TsNs),
		LastWalkedNs: p.Cursor.LastWalkedNs, LastWalked: nsTime(p.Cursor.LastWalkedNs), NextWalk: p.Walk.String(), Recovery: p.Recovery.String(),
		Replays: p.Replays, ReplayFromNs: p.ReplayFromNs, ReplayFrom: nsTime(p.ReplayFromNs)}
	if p.Err != nil {
		out.CursorError = p.Err.Error()
	}
	return out
}

func newTargetReport(t explain.Target) TargetReport {
	out := TargetReport{VersionID: t.VersionID, UploadID: t.UploadID, Latest: t.Latest, DeleteMarker: t.DeleteMarker, Size: t.Size,
		Created: t.Created, NoncurrentSince: timePtr(t.NoncurrentSince), RetainUntil: timePtr(t.RetainUntil), LegalHold: t.LegalHold,
		Gone: t.Gone, Verdicts: []VerdictReport{}}
	if d := t.Dispatch; d != nil {
		out.Dispatch = &DispatchReport{RuleID: d.RuleID, Kind: string(d.Kind), Due: timePtr(d.Due), DueNow: d.DueNow, Size: d.Size,
			BytesFreed: d.BytesFreed, FoundBy: foundBy(d.Replay, d.Walk), Held: d.Held, Gone: d.Gone, NextPass: d.NextPass, Via: d.Via}
	}
	for _, v := range t.Verdicts {
		vr := VerdictReport{RuleID: v.RuleID, RuleIndex: v.RuleIndex, Action: v.Action, Outcome: v.Outcome.String(), Reason: v.Reason,
			Due: timePtr(v.Due), Detail: v.Detail, Chosen: v.Chosen}
		if v.Action != "" && v.Reason != lifecycle.ReasonDisabled.String() &&
			v.Reason != lifecycle.ReasonNotVersionAction.String() && v.Reason != lifecycle.ReasonNotUploadAction.String() {
			vr.Filter = &FilterReport{Matched: v.Filter.OK(), Failed: v.Filter.Failed.String(), Detail: v.FilterDetail}
		}
		if v.HasDue {
			vr.DueMath = &DueMathReport{Base: timePtr(v.DueMath.Base), BaseFrom: v.DueMath.From.String(), Days: v.DueMath.Days, Rounding: v.DueMath.Rounding.String()}
		}
		out.Verdicts = append(out.Verdicts, vr)
	}
	return out
}

func foundBy(replay, walk bool) string {
	switch {
	case replay && walk:
		return "replay_and_walk"
	case replay:
		return "replay"
	}
	return "walk"
}

// ExplainTables writes an explanation for a person, every line short of
// width columns: the key and its bucket, then per version and upload what
// the next pass does with it and every rule's verdict, then where the
// pass stands. Sentences wrap at spaces; a key or rule ID too long for a
// line is shortened in the middle (-o json has them whole).
func ExplainTables(w io.Writer, rep ExplainReport, width int) error {
	width = max(width, 40)
	p := paragrapher{w: w, width: width}
	if _, err := fmt.Fprintln(w, Title(w, Middle(rep.Bucket+"/"+Cell(rep.Key), width-1))); err != nil {
		return err
	}
	head := fmt.Sprintf("at %s; versioning %s", rep.Now.Format(time.RFC3339), rep.Versioning)
	if rep.ObjectLock {
		head += ", Object Lock"
	}
	head += fmt.Sprintf("; due rounding %s; expired markers %s", rep.DueRounding, rep.ExpiredMarkerDays)
	if err := p.write(head); err != nil {
		return err
	}
	var notes []string
	switch {
	case rep.ConfigurationError != "":
		notes = append(notes, "lifecycle configuration rejected, no action taken on this bucket: "+rep.ConfigurationError)
	case rep.NoConfiguration:
		notes = append(notes, "the bucket has no lifecycle configuration")
	}
	if rep.KeyError != "" {
		what := "the pass halts this key's shard on it"
		if rep.AmbiguousLayout {
			what = "the pass takes no action on this key and reports it (notice ambiguous_layout)"
		}
		notes = append(notes, fmt.Sprintf("the key cannot be read exactly, %s: %s", what, rep.KeyError))
	}
	if rep.AmbiguousSince != nil {
		notes = append(notes, "listed as ambiguous since "+rep.AmbiguousSince.Format(time.RFC3339)+": every pass reports it until it reads cleanly")
	}
	if len(rep.Versions)+len(rep.Uploads) == 0 && rep.KeyError == "" {
		notes = append(notes, "no version and no incomplete upload of this key")
	}
	for _, n := range notes {
		if err := p.write(n); err != nil {
			return err
		}
	}
	for _, t := range rep.Versions {
		if err := targetTable(p, t); err != nil {
			return err
		}
	}
	for _, t := range rep.Uploads {
		if err := targetTable(p, t); err != nil {
			return err
		}
	}
	return standingTable(p, rep.Pass)
}

func targetTable(p paragrapher, t TargetReport) error {
	w := p.w
	var title string
	switch {
	case t.UploadID != "" && t.Gone:
		title = fmt.Sprintf("\nUpload %s (gone: completed or aborted; its mpu_init event of %s is still to be replayed)", t.UploadID, t.Created.Format(time.RFC3339))
	case t.UploadID != "":
		title = fmt.Sprintf("\nUpload %s (initiated %s)", t.UploadID, t.Created.Format(time.RFC3339))
	default:
		var attrs []string
		if t.Latest {
			attrs = append(attrs, "latest")
		} else {
			attrs = append(attrs, "noncurrent")
		}
		if t.DeleteMarker {
			attrs = append(attrs, "delete marker")
		} else {
			attrs = append(attrs, Bytes(t.Size))
		}
		attrs = append(attrs, "created "+t.Created.Format(time.RFC3339))
		if t.NoncurrentSince != nil {
			attrs = append(attrs, "noncurrent since "+t.NoncurrentSince.Format(time.RFC3339))
		}
		if t.RetainUntil != nil {
			attrs = append(attrs, "retained until "+t.RetainUntil.Format(time.RFC3339))
		}
		if t.LegalHold {
			attrs = append(attrs, "legal hold")
		}
		title = fmt.Sprintf("\nVersion %s (%s)", Cell(t.VersionID), strings.Join(attrs, ", "))
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	if err := p.title(strings.TrimPrefix(title, "\n")); err != nil {
		return err
	}
	if err := p.write(dispatchLine(t.Dispatch)); err != nil {
		return err
	}
	header := []string{"RULE", "ACTION", "OUTCOME", "DUE"}
	var rows [][]string
	for _, v := range t.Verdicts {
		rule := v.RuleID
		if rule == "" && v.RuleIndex > 0 {
			rule = fmt.Sprintf("#%d", v.RuleIndex)
		}
		due := "-"
		if v.Due != nil {
			due = ShortTime(*v.Due)
		} else if v.DueMath != nil {
			due = "now"
		}
		outcome := v.Outcome
		if v.Chosen {
			rule = "*" + rule
			if strings.HasPrefix(v.Reason, "object_lock_") {
				// The next pass dispatches it and the store skips it:
				// due, and held (JSON keeps outcome never with the
				// reason).
				outcome = "held"
			}
		}
		rows = append(rows, []string{Cell(rule), Cell(v.Action), outcome, due})
	}
	rows = append([][]string{header}, FitRows(header, rows, p.width, 0)...)
	widths := make([]int, 4)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r {
			if j < len(r)-1 {
				c += strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+columnGap)
			}
			b.WriteString(c)
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
		if i == 0 {
			continue
		}
		for _, line := range wrapShort(Cell(t.Verdicts[i-1].Detail), p.width-1-len(whyIndent)) {
			if _, err := fmt.Fprintln(w, whyIndent+line); err != nil {
				return err
			}
		}
	}
	return nil
}

// whyIndent sets a verdict's sentence under its row.
const whyIndent = "    "

// wrap breaks s at spaces into lines of at most width runes; a word
// longer than width gets a line of its own.
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, word := range glueUnits(strings.Fields(s)) {
		wl := utf8.RuneCountInString(word)
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// wrapShort is wrap with every word longer than width (a key, an ID)
// shortened in the middle to fit a line.
func wrapShort(s string, width int) []string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = Middle(w, width)
	}
	return wrap(strings.Join(words, " "), width)
}

// dispatchLine says what the next pass does with a target.
func dispatchLine(d *DispatchReport) string {
	if d == nil {
		return "next pass: nothing (no enabled rule applies)"
	}
	rule := d.RuleID
	if rule == "" {
		rule = "(no ID)"
	}
	bytes := ""
	switch {
	case d.Held != "" && (d.Size > 0 || d.BytesFreed > 0):
		bytes = fmt.Sprintf("; %s, frees nothing while held (%s once it ends)", Bytes(d.Size), Bytes(d.BytesFreed))
	case d.Size > 0 || d.BytesFreed > 0:
		bytes = fmt.Sprintf("; %s, frees %s", Bytes(d.Size), Bytes(d.BytesFreed))
	}
	var s string
	switch {
	case !d.DueNow:
		s = fmt.Sprintf("next pass: nothing yet; %s of rule %s is due at %s (found by %s%s)", d.Kind, rule, d.Due.Format(time.RFC3339), d.FoundBy, bytes)
	case !d.NextPass:
		s = fmt.Sprintf("next pass: nothing; %s of rule %s is due (* below), but %s%s", d.Kind, rule, d.Via, bytes)
	default:
		s = fmt.Sprintf("next pass: dispatches %s of rule %s (* below), found by %s%s", d.Kind, rule, d.Via, bytes)
	}
	if d.Held != "" {
		s += "; " + d.Held
	}
	if d.Gone != "" {
		s += "; " + d.Gone
	}
	return s
}

func standingTable(pw paragrapher, p StandingReport) error {
	w := pw.w
	pl := p.Plan
	cursor, walked := "cold", "never"
	if pl.CursorError != "" {
		cursor = "unreadable"
	} else if pl.Cursor != nil {
		cursor = pl.Cursor.Format(time.RFC3339)
	} else if pl.CursorFound {
		cursor = "-"
	}
	if pl.LastWalked != nil {
		walked = pl.LastWalked.Format(time.RFC3339)
	}
	next := dash(pl.NextWalk)
	if pl.Recovery != "" {
		next += " (" + pl.Recovery + ")"
	}
	rows := [][]string{{fmt.Sprintf("%02d", p.Shard), cursor, walked, next}}
	if err := Table(w, "\nPass (the shard that walks this key)", []string{"SHARD", "CURSOR", "LAST_WALKED", "NEXT_WALK"}, rows); err != nil {
		return err
	}
	if err := pw.write(replayLine(pl)); err != nil {
		return err
	}
	var line string
	switch {
	case !p.MetaLog:
		line = "meta-log: none on this filer; every rule is walked"
	case p.LastEvent != nil:
		e := p.LastEvent
		target := e.VersionID
		if e.UploadID != "" {
			target = "upload " + e.UploadID
		}
		start := "cursor"
		if !e.ShardPlan.CursorFound {
			start = "cold-start replay floor"
		}
		rel := "at or before that shard's " + start + ": already replayed"
		switch {
		case e.AfterCursor:
			rel = "after that shard's " + start + ": the next pass replays it"
		case !e.ShardPlan.Replays:
			rel = "that shard does not replay the meta-log next pass"
		}
		line = fmt.Sprintf("last event: %s %s at %s, in meta-log shard %02d, %s (%d of the key's events pending replay)",
			e.Type, Cell(target), e.Time.Format(time.RFC3339), e.Shard, rel, p.PendingEvents)
	case p.ScannedFromNs != nil:
		line = fmt.Sprintf("last event: none after %s (the earliest replay start of any shard, or the cold-start window): the key's events are all older, so no replay reads them",
			time.Unix(0, *p.ScannedFromNs).UTC().Format(time.RFC3339))
	default:
		line = "last event: not looked up; no shard replays the meta-log this pass"
	}
	if err := pw.write(line); err != nil {
		return err
	}
	if pl.CursorError != "" {
		return pw.write("cursor unreadable, the pass halts this shard: " + pl.CursorError)
	}
	return nil
}

// paragrapher writes sentences to w wrapped short of width columns.
type paragrapher struct {
	w     io.Writer
	width int
}

// write writes s wrapped, continuation lines indented by two spaces.
func (p paragrapher) write(s string) error {
	return p.lines(s, func(line string) string { return line })
}

// title writes s as write does, each line styled as a title.
func (p paragrapher) title(s string) error {
	return p.lines(s, func(line string) string { return Title(p.w, line) })
}

func (p paragrapher) lines(s string, style func(string) string) error {
	for i, line := range wrapShort(Cell(s), p.width-3) {
		if i > 0 {
			line = "  " + line
		}
		if _, err := fmt.Fprintln(p.w, style(line)); err != nil {
			return err
		}
	}
	return nil
}

// replayLine says from when the shard's next pass replays the meta-log.
func replayLine(pl ShardPlanReport) string {
	if !pl.Replays {
		return "replay: none; the shard does not replay the meta-log next pass"
	}
	return "replay: from " + time.Unix(0, pl.ReplayFromNs).UTC().Format(time.RFC3339)
}

// glueUnits keeps a byte unit with its number ("5.1 GiB") so a line never
// breaks between them.
func glueUnits(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		switch strings.TrimRight(w, ",;:)") {
		case "B", "KiB", "MiB", "GiB", "TiB", "PiB":
			if len(out) > 0 {
				out[len(out)-1] += " " + w
				continue
			}
		}
		out = append(out, w)
	}
	return out
}
