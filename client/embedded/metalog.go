package embedded

import (
	"context"

	bolt "go.etcd.io/bbolt"

	"github.com/ilmctl/ilmctl/core/filer"
)

// nextTsNs returns the TsNs for the next meta-log event: the clock's Unix
// nanoseconds, bumped to last+1 when the clock is at or behind the log, so
// TsNs stay strictly increasing even when the clock stands still or steps
// back (tests inject a frozen clock; fixtures write events in the past).
func nextTsNs(tx *bolt.Tx, now int64) int64 {
	k, _ := tx.Bucket(bktMetalog).Cursor().Last()
	if k == nil {
		return now
	}
	if last := tsFromKey(k); now <= last {
		return last + 1
	}
	return now
}

// putEvent writes ev at ev.TsNs; callers get ev.TsNs from nextTsNs (or, for
// fixtures, from a slot known to be free).
func putEvent(tx *bolt.Tx, ev filer.Event) error {
	raw, err := encode(eventRecord{
		Type:       ev.Type,
		Bucket:     ev.Bucket,
		Key:        ev.Key,
		VersionID:  ev.VersionID,
		UploadID:   ev.UploadID,
		Noncurrent: ev.Noncurrent,
	})
	if err != nil {
		return err
	}
	return tx.Bucket(bktMetalog).Put(tsKey(ev.TsNs), raw)
}

// SubscribeMetadata delivers events with sinceNs < TsNs <= untilNs in TsNs
// order. It reads f.subscribeBatch events per read transaction and calls fn
// with no transaction open, so a slow fn never pins old pages or blocks a
// writer's remap.
func (f *Filer) SubscribeMetadata(ctx context.Context, sinceNs, untilNs int64, fn func(filer.Event) error) error {
	if sinceNs < -1 {
		sinceNs = -1 // TsNs are Unix nanoseconds, never negative
	}
	for sinceNs < untilNs {
		if err := ctx.Err(); err != nil {
			return err
		}
		batch, err := f.readEvents(sinceNs, untilNs, f.subscribeBatch)
		if err != nil {
			return err
		}
		for _, ev := range batch {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
		if len(batch) < f.subscribeBatch {
			return nil
		}
		sinceNs = batch[len(batch)-1].TsNs
	}
	return nil
}

// readEvents reads up to limit events with sinceNs < TsNs <= untilNs.
// sinceNs < untilNs <= MaxInt64, so sinceNs+1 cannot overflow.
func (f *Filer) readEvents(sinceNs, untilNs int64, limit int) ([]filer.Event, error) {
	var out []filer.Event
	err := f.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bktMetalog).Cursor()
		for k, v := c.Seek(tsKey(sinceNs + 1)); k != nil && len(out) < limit; k, v = c.Next() {
			ts := tsFromKey(k)
			if ts > untilNs {
				break
			}
			var rec eventRecord
			if err := decode("meta-log event", v, &rec); err != nil {
				return err
			}
			out = append(out, filer.Event{
				TsNs:       ts,
				Type:       rec.Type,
				Bucket:     rec.Bucket,
				Key:        rec.Key,
				VersionID:  rec.VersionID,
				UploadID:   rec.UploadID,
				Noncurrent: rec.Noncurrent,
			})
		}
		return nil
	})
	f.afterRead()
	return out, err
}
