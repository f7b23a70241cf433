package seaweedfs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/seaweedfs/seaweedfs/weed/pb/filer_pb"

	"github.com/ilmctl/ilmctl/core/filer"
)

// metaLogDir is where the filer persists its meta-log: one directory per
// UTC day ("2006-01-02") of files named for the minute their flush window
// starts and the filer ("15-04.<filer id>"), per weed/filer/topics.go
// SystemLogDir and filer_notify.go logFlushFunc.
const metaLogDir = "/topics/.system/log"

// metaLogWindow is how far past its name's minute a persisted file can
// hold events: a minute plus one flush interval (a minute), per
// weed/filer/filer_notify_read.go logFileMayContainAfter.
const metaLogWindow = 2 * time.Minute

// metaLogVolumesWait bounds how long SubscribeMetadata waits for the
// volumes holding the persisted meta-log to be located. Right after a
// restart a volume is unknown until its server's first heartbeat reaches
// the master (about 20 seconds on one host).
const metaLogVolumesWait = time.Minute

// ErrMetaLogUnreadable is a persisted meta-log file in the range a pass
// reads whose chunk lives on a volume the cluster cannot locate. The filer
// does not fail such a subscription: it skips the rest of the file ("volume
// not found", weed/filer/filer_notify_read.go getNext) and ends the stream
// as if it had delivered everything, which would move cursors past events
// never seen. So the subscription is refused instead; the pass ends with
// the shards' cursors where they were.
var ErrMetaLogUnreadable = errors.New("persisted meta-log is on a volume the cluster cannot locate")

// metaLogChunk is one chunk of a persisted meta-log file.
type metaLogChunk struct {
	file   string // path under metaLogDir
	volume string // volume id, decimal
}

// metaLogFileTime is the start of the flush window a persisted meta-log
// file named name in day directory day holds; ok is false for names that
// are not meta-log files.
func metaLogFileTime(day, name string) (time.Time, bool) {
	d, err := time.Parse("2006-01-02", day)
	if err != nil {
		return time.Time{}, false
	}
	hm, _, ok := strings.Cut(name, ".")
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse("15-04", hm)
	if err != nil {
		return time.Time{}, false
	}
	return d.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute), true
}

// metaLogFileInRange reports whether a file whose window starts at start
// can hold events with sinceNs < TsNs <= untilNs.
func metaLogFileInRange(start time.Time, sinceNs, untilNs int64) bool {
	return start.UnixNano() <= untilNs && start.Add(metaLogWindow).UnixNano() > sinceNs
}

// metaLogChunks lists the chunks of the persisted meta-log files that can
// hold events in (sinceNs, untilNs]. A chunk manifest is checked as the
// chunk it is; the chunks it lists are not opened.
func (s *Store) metaLogChunks(ctx context.Context, sinceNs, untilNs int64) ([]metaLogChunk, error) {
	days, err := s.listAll(ctx, metaLogDir)
	if err != nil {
		return nil, err
	}
	var out []metaLogChunk
	for _, d := range days {
		if !d.IsDirectory {
			continue
		}
		day, err := time.Parse("2006-01-02", d.Name)
		if err != nil || day.UnixNano() > untilNs || day.Add(24*time.Hour+metaLogWindow).UnixNano() <= sinceNs {
			continue
		}
		files, err := s.listAll(ctx, metaLogDir+"/"+d.Name)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			start, ok := metaLogFileTime(d.Name, f.Name)
			if !ok || f.IsDirectory || !metaLogFileInRange(start, sinceNs, untilNs) {
				continue
			}
			for _, c := range f.GetChunks() {
				vid, _, _ := strings.Cut(c.GetFileIdString(), ",")
				out = append(out, metaLogChunk{file: d.Name + "/" + f.Name, volume: vid})
			}
		}
	}
	return out, nil
}

// awaitMetaLogVolumes returns once every volume holding a persisted
// meta-log chunk in (sinceNs, untilNs] is located, or ErrMetaLogUnreadable
// naming the first file that is not after metaLogVolumesWait.
func (s *Store) awaitMetaLogVolumes(ctx context.Context, sinceNs, untilNs int64) error {
	chunks, err := s.metaLogChunks(ctx, sinceNs, untilNs)
	if err != nil {
		return fmt.Errorf("list the persisted meta-log: %w", err)
	}
	return awaitLocated(ctx, chunks, s.unlocated, backoff.SystemClock, nil)
}

// errNotLocated keeps the poll going while a chunk's volume is unknown.
var errNotLocated = errors.New("meta-log volume not located yet")

// metaLogPoll asks again every second until metaLogVolumesWait has passed
// on clock.
func metaLogPoll(clock backoff.Clock) *backoff.ExponentialBackOff {
	return backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(time.Second), backoff.WithMultiplier(1), backoff.WithMaxInterval(time.Second),
		backoff.WithRandomizationFactor(0), backoff.WithMaxElapsedTime(metaLogVolumesWait), backoff.WithClockProvider(clock))
}

// awaitLocated polls unlocated (cenkalti/backoff's retry loop, on clock and
// timer; a nil timer is the library's time.Timer) until every chunk's
// volume is located, ctx ends, or metaLogVolumesWait has passed, which is
// ErrMetaLogUnreadable naming the first chunk still missing.
func awaitLocated(ctx context.Context, chunks []metaLogChunk, unlocated func(context.Context, []metaLogChunk) ([]metaLogChunk, error), clock backoff.Clock, timer backoff.Timer) error {
	var missing []metaLogChunk
	var lastErr error
	err := backoff.RetryNotifyWithTimer(func() error {
		missing, lastErr = unlocated(ctx, chunks)
		if len(missing) > 0 {
			return errNotLocated
		}
		return nil
	}, backoff.WithContext(metaLogPoll(clock), ctx), nil, timer)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	c := missing[0]
	return fmt.Errorf("%w: %s/%s is on volume %s, still not located after %s (%d files affected; last lookup error: %v)",
		ErrMetaLogUnreadable, metaLogDir, c.file, c.volume, metaLogVolumesWait, countFiles(missing), lastErr)
}

// unlocated returns the chunks whose volume the filer cannot locate now,
// with the last lookup error.
func (s *Store) unlocated(ctx context.Context, chunks []metaLogChunk) ([]metaLogChunk, error) {
	located := map[string]bool{}
	var lastErr error
	for _, c := range chunks {
		if _, done := located[c.volume]; done {
			continue
		}
		// One volume per call: the filer answers an error, not a partial
		// map, when any of several is unknown.
		resp, err := s.fc.LookupVolume(ctx, &filer_pb.LookupVolumeRequest{VolumeIds: []string{c.volume}})
		if err != nil {
			lastErr = err
		}
		located[c.volume] = err == nil && len(resp.GetLocationsMap()[c.volume].GetLocations()) > 0
	}
	var missing []metaLogChunk
	for _, c := range chunks {
		if !located[c.volume] {
			missing = append(missing, c)
		}
	}
	return missing, lastErr
}

func countFiles(chunks []metaLogChunk) int {
	files := map[string]bool{}
	for _, c := range chunks {
		files[c.file] = true
	}
	return len(files)
}

// writersLookback is how far before fromNs MetaLogWriters lists the log
// for a writer's earlier files: a writer that wrote nothing for longer
// than that, then again, looks new, which costs a walk and nothing else.
const writersLookback = 24 * time.Hour

// MetaLogWriters lists the day directories of the persisted meta-log
// that can hold files from fromNs - writersLookback on and returns their
// writers: the id in a file's name, which the filer draws at random when
// it starts (weed/filer/filer.go UniqueFilerId), with a minute past its
// first file's name (the process began before its first event) and
// whether an earlier file or day directory of the log precedes it, and
// whether a listed file of another writer does.
func (s *Store) MetaLogWriters(ctx context.Context, fromNs int64) ([]filer.MetaLogWriter, error) {
	days, err := s.listAll(ctx, metaLogDir)
	if err != nil {
		return nil, fmt.Errorf("list the persisted meta-log: %w", err)
	}
	from := fromNs - int64(writersLookback)
	earlier := false // a day directory before the ones listed
	var out []filer.MetaLogWriter
	seen := map[string]bool{}
	var firstNs int64 = math.MaxInt64 // the earliest file listed
	for _, d := range days {
		day, err := time.Parse("2006-01-02", d.Name)
		if !d.IsDirectory || err != nil {
			continue
		}
		if day.Add(24*time.Hour).UnixNano() <= from {
			earlier = true
			continue
		}
		files, err := s.listAll(ctx, metaLogDir+"/"+d.Name)
		if err != nil {
			return nil, fmt.Errorf("list the persisted meta-log: %w", err)
		}
		type file struct {
			start  int64
			writer string
		}
		var fs []file
		for _, f := range files {
			start, ok := metaLogFileTime(d.Name, f.Name)
			_, writer, _ := strings.Cut(f.Name, ".")
			if ok && !f.IsDirectory && writer != "" {
				fs = append(fs, file{start.UnixNano(), writer})
			}
		}
		// Within a day, names sort by minute; a writer's first file names
		// the minute its first flush window began.
		slices.SortStableFunc(fs, func(a, b file) int { return cmp.Compare(a.start, b.start) })
		for _, f := range fs {
			if seen[f.writer] {
				continue
			}
			seen[f.writer] = true
			out = append(out, filer.MetaLogWriter{ID: f.writer, BeganByNs: f.start + int64(time.Minute),
				Successor: earlier || firstNs < f.start, FollowsListed: firstNs < f.start})
			firstNs = min(firstNs, f.start)
		}
	}
	return out, nil
}
