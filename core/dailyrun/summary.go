package dailyrun

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// MaxSummarySegments bounds a cursor's pending summary: past it, adjacent
// segments are merged two by two, so a cursor file stays a few kilobytes
// and a pass's memory flat whatever the number of pending matches
// (docs/design/daily-run.md#pending-summary).
const MaxSummarySegments = 256

// Summary is what the pass that saved a cursor knew about the events
// between the cursor's TsNs and DecidedThroughNs: every one of them was
// decided, and those that left a match not yet due lie in Segments. The
// next pass re-decides only the segments due by its clock and the events
// after DecidedThroughNs (docs/design/daily-run.md#pending-summary). It is
// an optimisation, never authority: a summary that does not fit the cursor
// it is saved with is ignored and the shard replays from the cursor.
type Summary struct {
	// CursorTsNs is the cursor's TsNs the summary was written with; a
	// cursor moved since (by hand, to force a replay) makes it void.
	CursorTsNs int64
	// DecidedThroughNs is the last meta-log TsNs (Unix nanoseconds) the
	// saving pass decided: its boundary, or where the shard stopped.
	DecidedThroughNs int64
	// Segments are in event order, disjoint, inside
	// (CursorTsNs, DecidedThroughNs].
	Segments []Segment
}

// Segment is a run of events, FirstTsNs to LastTsNs inclusive (Unix
// nanoseconds), of which at least one left a match not yet due; MinDueNs
// is the earliest due time (Unix nanoseconds, as the pass computed it,
// rounding included) of any of them.
type Segment struct {
	FirstTsNs, LastTsNs, MinDueNs int64
}

// usable reports whether the summary fits cursor c and a pass that reads
// the meta-log up to untilNs: written with c's TsNs, and decided no
// further than this pass may read (a pass dated before the saving one
// must not skip events its clock has not reached).
func (s *Summary) usable(c Cursor, untilNs int64) bool {
	return s != nil && s.CursorTsNs == c.TsNs && s.DecidedThroughNs <= untilNs
}

// summaryFile is the JSON form of Summary inside a cursor file:
// segments are [first_ts_ns, last_ts_ns, min_due_ns] triples.
type summaryFile struct {
	CursorTsNs       int64     `json:"cursor_ts_ns"`
	DecidedThroughNs int64     `json:"decided_through_ns"`
	Segments         [][]int64 `json:"segments"`
}

func (s *Summary) encode() *summaryFile {
	f := &summaryFile{CursorTsNs: s.CursorTsNs, DecidedThroughNs: s.DecidedThroughNs, Segments: make([][]int64, len(s.Segments))}
	for i, g := range s.Segments {
		f.Segments[i] = []int64{g.FirstTsNs, g.LastTsNs, g.MinDueNs}
	}
	return f
}

// errSummary names the invariant a decoded summary breaks.
var errSummary = errors.New("inconsistent pending summary")

// decode checks every invariant ilmctl writes a summary with; a summary
// that breaks one was not written by ilmctl as it is, and the cursor
// file is corrupt (docs/design/daily-run.md#pending-summary).
func (f *summaryFile) decode() (*Summary, error) {
	bad := func(format string, args ...any) (*Summary, error) {
		return nil, fmt.Errorf("%w: %s", errSummary, fmt.Sprintf(format, args...))
	}
	switch {
	case f.CursorTsNs < 0:
		return bad("cursor_ts_ns is negative")
	case f.DecidedThroughNs < f.CursorTsNs:
		return bad("decided_through_ns %d is before cursor_ts_ns %d", f.DecidedThroughNs, f.CursorTsNs)
	case len(f.Segments) > MaxSummarySegments:
		return bad("%d segments, at most %d", len(f.Segments), MaxSummarySegments)
	}
	s := &Summary{CursorTsNs: f.CursorTsNs, DecidedThroughNs: f.DecidedThroughNs, Segments: make([]Segment, 0, len(f.Segments))}
	prev := f.CursorTsNs
	for i, t := range f.Segments {
		if len(t) != 3 {
			return bad("segment %d has %d numbers, want [first_ts_ns, last_ts_ns, min_due_ns]", i, len(t))
		}
		g := Segment{FirstTsNs: t[0], LastTsNs: t[1], MinDueNs: t[2]}
		switch {
		case g.FirstTsNs <= prev:
			return bad("segment %d starts at %d, not after %d", i, g.FirstTsNs, prev)
		case g.LastTsNs < g.FirstTsNs:
			return bad("segment %d ends before it starts", i)
		case g.LastTsNs > f.DecidedThroughNs:
			return bad("segment %d ends after decided_through_ns", i)
		case g.MinDueNs <= 0:
			return bad("segment %d has no due time", i)
		}
		s.Segments = append(s.Segments, g)
		prev = g.LastTsNs
	}
	return s, nil
}

// summaryBuilder collects, in event order, the segments a shard's replay
// leaves pending: segments it carried forward unread and events it decided
// with a match not yet due. Pending events due the same UTC day share a
// segment until one due another day comes (with the finished events
// between them: a daily pass decides them all on that day or the next
// anyway). Past MaxSummarySegments it merges neighbours, those whose due
// times lie closest together first, down to half (compact), so its memory
// is flat and a segment that comes due holds matches due about then, not a
// stretch of the meta-log whose matches come due over months.
type summaryBuilder struct {
	segs []Segment
	// maxDue[i] is the latest due time (Unix ns) in segs[i], known for the
	// segments this pass made; a carried one counts as its MinDueNs.
	maxDue  []int64
	open    Segment
	openMax int64
	hasOpen bool
}

func newSummaryBuilder() *summaryBuilder { return &summaryBuilder{} }

// pending notes an event at tsNs that left a match due at dueNs.
func (b *summaryBuilder) pending(tsNs, dueNs int64) {
	// Events sharing a TsNs stay in one segment: a segment is a range
	// of times, and a store that stamps two events alike still orders
	// them (the meta-log's TsNs should be strictly increasing).
	if b.hasOpen && (tsNs <= b.open.LastTsNs || dueDay(dueNs) == dueDay(b.open.MinDueNs) && dueDay(dueNs) == dueDay(b.openMax)) {
		b.open.LastTsNs = tsNs
		b.open.MinDueNs = min(b.open.MinDueNs, dueNs)
		b.openMax = max(b.openMax, dueNs)
		return
	}
	b.closeOpen()
	b.open, b.openMax, b.hasOpen = Segment{FirstTsNs: tsNs, LastTsNs: tsNs, MinDueNs: dueNs}, dueNs, true
}

// carry notes a segment carried forward unread.
func (b *summaryBuilder) carry(g Segment) {
	b.closeOpen()
	b.add(g, g.MinDueNs)
}

func (b *summaryBuilder) closeOpen() {
	if b.hasOpen {
		b.hasOpen = false
		b.add(b.open, b.openMax)
	}
}

func (b *summaryBuilder) add(g Segment, maxDue int64) {
	if n := len(b.segs); n > 0 && g.FirstTsNs <= b.segs[n-1].LastTsNs {
		last := &b.segs[n-1]
		last.LastTsNs, last.MinDueNs = max(last.LastTsNs, g.LastTsNs), min(last.MinDueNs, g.MinDueNs)
		b.maxDue[n-1] = max(b.maxDue[n-1], maxDue)
		return
	}
	b.segs = append(b.segs, g)
	b.maxDue = append(b.maxDue, maxDue)
	if len(b.segs) > MaxSummarySegments {
		b.compact()
	}
}

// compact merges neighbouring segments until half of MaxSummarySegments
// remain, each time the pair whose merge spans the fewest days of due
// times (on a tie, the pair closer together in the meta-log). A merged
// segment comes due at the earlier of its two due times, so this decides
// as few matches early as it can: a burst of pending events due the same
// day (a pass's delete markers, whose demotions all come due together)
// merges among itself before it touches the older segments. Merging every
// pair instead folded those older segments, due over months, into one due
// at the earliest of them, which a 10M-version steady pass then decided
// whole every day. Each merge scans the merge costs once: about 33k
// comparisons per MaxSummarySegments/2 segments added.
func (b *summaryBuilder) compact() {
	// days[i] and gap[i] are the cost of merging segs[i] and segs[i+1].
	days := make([]int64, len(b.segs)-1)
	gap := make([]int64, len(b.segs)-1)
	cost := func(i int) {
		g, h := b.segs[i], b.segs[i+1]
		days[i] = dueDay(max(b.maxDue[i], b.maxDue[i+1])) - dueDay(min(g.MinDueNs, h.MinDueNs))
		gap[i] = h.FirstTsNs - g.LastTsNs
	}
	for i := range days {
		cost(i)
	}
	for len(b.segs) > MaxSummarySegments/2 {
		best := 0
		for i := 1; i < len(days); i++ {
			if days[i] < days[best] || days[i] == days[best] && gap[i] < gap[best] {
				best = i
			}
		}
		g, h := b.segs[best], b.segs[best+1]
		b.segs[best] = Segment{FirstTsNs: g.FirstTsNs, LastTsNs: h.LastTsNs, MinDueNs: min(g.MinDueNs, h.MinDueNs)}
		b.maxDue[best] = max(b.maxDue[best], b.maxDue[best+1])
		b.segs = slices.Delete(b.segs, best+1, best+2)
		b.maxDue = slices.Delete(b.maxDue, best+1, best+2)
		days = slices.Delete(days, best, best+1)
		gap = slices.Delete(gap, best, best+1)
		if best < len(days) {
			cost(best)
		}
		if best > 0 {
			cost(best - 1)
		}
	}
}

// dueDay is the UTC day (days since 1970-01-01) of a due time in Unix ns.
func dueDay(ns int64) int64 { return ns / (24 * 3600 * 1e9) }

// summary is the pending summary for a cursor at cursorNs of a shard whose
// events are decided (and their dispatches finished) through throughNs:
// segments past throughNs are dropped and one across it is cut there, as
// every event after throughNs is replayed next pass anyway.
func (b *summaryBuilder) summary(cursorNs, throughNs int64) *Summary {
	b.closeOpen()
	s := &Summary{CursorTsNs: cursorNs, DecidedThroughNs: max(throughNs, cursorNs)}
	for _, g := range b.segs {
		if g.FirstTsNs > s.DecidedThroughNs || g.FirstTsNs <= cursorNs {
			continue
		}
		g.LastTsNs = min(g.LastTsNs, s.DecidedThroughNs)
		s.Segments = append(s.Segments, g)
	}
	return s
}

// span is a range of meta-log TsNs, (since, until].
type span struct{ since, until int64 }

// replayPlan is what a shard reads this pass: with a usable summary, the
// segments due by runNow and everything after DecidedThroughNs; without,
// everything after the start.
type replayPlan struct {
	start   int64
	sum     *Summary  // nil: replay everything after start
	due     []Segment // the summary's segments due by runNow
	carried []Segment // the rest, carried forward unread
}

func (p *pass) planReplay(s *shardRun) replayPlan {
	pl := replayPlan{start: p.replayFloor(s)}
	if !s.found {
		return pl
	}
	pl.start = s.persisted.TsNs
	if sum := s.persisted.Summary; sum.usable(s.persisted, p.untilNs) {
		pl.sum = sum
		for _, g := range sum.Segments {
			if g.MinDueNs <= p.runNowNs {
				pl.due = append(pl.due, g)
			} else {
				pl.carried = append(pl.carried, g)
			}
		}
	}
	return pl
}

// spans is what the plan needs read, in order.
func (pl replayPlan) spans(untilNs int64) []span {
	if pl.sum == nil {
		return []span{{pl.start, untilNs}}
	}
	out := make([]span, 0, len(pl.due)+1)
	for _, g := range pl.due {
		out = append(out, span{g.FirstTsNs - 1, g.LastTsNs})
	}
	if pl.sum.DecidedThroughNs < untilNs {
		out = append(out, span{pl.sum.DecidedThroughNs, untilNs})
	}
	return out
}

// maxSubscriptions bounds how many meta-log reads one pass opens: past
// it the closest spans are joined, and shards drop the events between
// that they do not need.
const maxSubscriptions = 64

// mergeSpans is the union of spans, sorted, with at most limit spans:
// overlapping and touching spans are joined, then the narrowest gaps
// closed until limit is met.
func mergeSpans(in []span, limit int) []span {
	if len(in) == 0 {
		return nil
	}
	s := slices.Clone(in)
	slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.since, b.since) })
	out := []span{s[0]}
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if x.since <= last.until {
			last.until = max(last.until, x.until)
			continue
		}
		out = append(out, x)
	}
	for len(out) > limit {
		best := 1
		for i := 2; i < len(out); i++ {
			if out[i].since-out[i-1].until < out[best].since-out[best-1].until {
				best = i
			}
		}
		out[best-1].until = out[best].until
		out = slices.Delete(out, best, best+1)
	}
	return out
}
