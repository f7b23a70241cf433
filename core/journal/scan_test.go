package journal

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/metastore"
)

// mem is an in-memory pool; truncateNoToken makes the first page claim
// truncation without a token.
type mem struct {
	name            string
	objs            map[string][]byte
	truncateNoToken bool
}

func (m *mem) Name() string { return m.name }
func (m *mem) Get(_ context.Context, k string) ([]byte, string, error) {
	b, ok := m.objs[k]
	if !ok {
		return nil, "", metastore.ErrNotFound
	}
	return b, "etag-" + k, nil
}
func (m *mem) List(_ context.Context, prefix, token string, limit int) (metastore.Page, error) {
	var keys []string
	for k := range m.objs {
		if strings.HasPrefix(k, prefix) && k > token {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	p := metastore.Page{}
	if len(keys) > limit {
		keys = keys[:limit]
		p.Truncated, p.NextToken = true, keys[len(keys)-1]
	}
	if m.truncateNoToken {
		p.Truncated, p.NextToken = true, ""
	}
	for _, k := range keys {
		p.Objects = append(p.Objects, metastore.Object{Key: k, LastModified: time.Unix(0, fixtureNowNanos-int64(time.Hour))})
	}
	return p, nil
}
func (m *mem) PutIfAbsent(context.Context, string, []byte) (string, error) {
	return "", errors.ErrUnsupported
}
func (m *mem) PutIfMatch(context.Context, string, []byte, string) (string, error) {
	return "", errors.ErrUnsupported
}
func (m *mem) DeleteIfMatch(context.Context, string, string) error { return errors.ErrUnsupported }
func (m *mem) CheckConditionalDelete(context.Context) error        { return errors.ErrUnsupported }

func pools(fx []fixture) []metastore.Store {
	a := &mem{name: "pool-a", objs: map[string][]byte{}}
	b := &mem{name: "pool-b", objs: map[string][]byte{}}
	for _, f := range fx {
		if f.pool == "pool-b" {
			b.objs[f.key] = f.data
		} else {
			a.objs[f.key] = f.data
		}
	}
	return []metastore.Store{a, b}
}

func fixedClock() time.Time { return time.Unix(0, fixtureNowNanos) }

func TestFixturesClassify(t *testing.T) {
	fx := buildFixtures()
	if *update {
		if err := writeFixtures("../../testdata/ilm", fx); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Scan(context.Background(), pools(fx), Options{Clock: fixedClock, PageSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Incomplete {
		t.Fatalf("unexpected incomplete scan: %+v", rep.PoolErrors)
	}
	got := map[string]Record{}
	for _, r := range rep.Records {
		got[r.Path] = r
	}
	for _, f := range fx {
		r, ok := got[f.key]
		if !ok {
			t.Errorf("%s: not in report", f.key)
			continue
		}
		if r.Classification != f.class || r.Decision != f.decision {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", f.key, r.Classification, r.Decision, r.Reason, f.class, f.decision)
		}
	}
}

func TestFixturesOnDiskAreCurrent(t *testing.T) {
	// The committed testdata must match the generator (run with -update).
	for _, f := range buildFixtures() {
		b, err := readFixture("../../testdata/ilm", f)
		if err != nil {
			t.Fatalf("%s/%s: %v (run go test ./core/journal -run TestFixturesClassify -update)", f.pool, f.key, err)
		}
		if string(b) != string(f.data) {
			t.Fatalf("%s/%s differs from the generator (run with -update)", f.pool, f.key)
		}
	}
}

func TestTruncatedPageWithoutTokenIsIncomplete(t *testing.T) {
	fx := buildFixtures()
	ps := pools(fx)
	ps[1].(*mem).truncateNoToken = true
	rep, err := Scan(context.Background(), ps, Options{Clock: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Incomplete || len(rep.PoolErrors) != 1 || !strings.Contains(rep.PoolErrors[0].Error, "truncated") {
		t.Fatalf("want incomplete with a truncation error, got %+v", rep.PoolErrors)
	}
	for _, r := range rep.Records {
		for _, c := range r.Copies {
			if c.Pool == "pool-b" {
				t.Fatalf("record %s from the truncated page was acted on", r.Path)
			}
		}
	}
}

func TestScanNeedsClock(t *testing.T) {
	if _, err := Scan(context.Background(), nil, Options{}); err == nil {
		t.Fatal("want error without a clock")
	}
}
