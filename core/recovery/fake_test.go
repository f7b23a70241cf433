package recovery

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/metastore"
)

// memStore is an in-memory metastore.Store keeping the write contract
// (docs/design/recovery.md#metadata-store-write-contract); the ETag is the
// content's SHA-256.
type memStore struct {
	name string
	mu   sync.Mutex
	m    map[string][]byte
	// clock, when set, stamps each write; List reports the stamp as
	// LastModified, as a real store reports its modification time.
	clock func() time.Time
	at    map[string]time.Time
}

func newMem(name string) *memStore {
	return &memStore{name: name, m: map[string][]byte{}, at: map[string]time.Time{}}
}

// stamp records a write of key; s.mu is held.
func (s *memStore) stamp(key string) {
	if s.clock != nil {
		s.at[key] = s.clock()
	}
}

func (s *memStore) Name() string { return s.name }

func (s *memStore) Get(_ context.Context, key string) ([]byte, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return nil, "", fmt.Errorf("%s: %s: %w", s.name, key, metastore.ErrNotFound)
	}
	return append([]byte(nil), b...), envelope.SHA256Hex(b), nil
}

func (s *memStore) List(_ context.Context, prefix, token string, limit int) (metastore.Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) && k > token {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var p metastore.Page
	if limit > 0 && len(keys) > limit {
		keys, p.Truncated = keys[:limit], true
		p.NextToken = keys[len(keys)-1]
	}
	for _, k := range keys {
		p.Objects = append(p.Objects, metastore.Object{Key: k, ETag: envelope.SHA256Hex(s.m[k]), Size: int64(len(s.m[k])), LastModified: s.at[k]})
	}
	return p, nil
}

func (s *memStore) PutIfAbsent(_ context.Context, key string, data []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; ok {
		return "", fmt.Errorf("%s: %s: %w", s.name, key, metastore.ErrExists)
	}
	s.m[key] = append([]byte(nil), data...)
	s.stamp(key)
	return envelope.SHA256Hex(data), nil
}

func (s *memStore) PutIfMatch(_ context.Context, key string, data []byte, etag string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return "", fmt.Errorf("%s: %s: %w", s.name, key, metastore.ErrNotFound)
	}
	if envelope.SHA256Hex(b) != etag {
		return "", fmt.Errorf("%s: %s: %w", s.name, key, metastore.ErrPreconditionFailed)
	}
	s.m[key] = append([]byte(nil), data...)
	s.stamp(key)
	return envelope.SHA256Hex(data), nil
}

// CheckConditionalDelete is nil: the compare and the delete hold s.mu.
func (s *memStore) CheckConditionalDelete(context.Context) error { return nil }

func (s *memStore) DeleteIfMatch(_ context.Context, key, etag string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return fmt.Errorf("%s: %s: %w", s.name, key, metastore.ErrNotFound)
	}
	if envelope.SHA256Hex(b) != etag {
		return fmt.Errorf("%s: %s: %w", s.name, key, metastore.ErrPreconditionFailed)
	}
	delete(s.m, key)
	delete(s.at, key)
	return nil
}

// put writes key unconditionally (test setup: a replacement appearing).
func (s *memStore) put(key string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), data...)
	s.stamp(key)
}

func (s *memStore) has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[key]
	return ok
}

// Fault modes of faultStore.
type faultMode int

const (
	faultFail         faultMode = iota // the Nth op fails without effect
	faultLoseResponse                  // the Nth op takes effect, its caller gets an error
	faultCrashAfter                    // the Nth op takes effect, then every later op fails (the process died)
)

var (
	errInjected = errors.New("injected fault")
	errCrashed  = errors.New("injected crash: process is gone")
)

// op is one call the wrapper saw.
type op struct{ Kind, Key string }

// faultStore wraps a Store, counts every operation and injects one fault
// at the Nth operation whose kind matches (all kinds when Kinds is empty).
// It is test-only: no production code can reach it.
type faultStore struct {
	metastore.Store
	mu      sync.Mutex
	Mode    faultMode
	At      int      // 1-based count of matching ops; 0 disables
	Kinds   []string // "get", "list", "create", "cas", "delete"
	KeyPart string   // only ops whose key contains this count
	n       int
	crashed bool
	Ops     []op
	// Pause, when set, runs before each operation (outside the lock) and
	// may run another operator's whole command there: the deterministic
	// way to delay one process between two of its steps.
	Pause func(kind, key string)
	// DeleteCheck, when set, answers CheckConditionalDelete and is asked
	// again by each DeleteIfMatch, which it stops when it fails: an
	// s3:// pool's conditional-delete probe. Unset, the store needs none
	// (a dir: pool).
	DeleteCheck func() error
	// Checks counts the calls of CheckConditionalDelete.
	Checks int
}

func (f *faultStore) CheckConditionalDelete(context.Context) error {
	f.mu.Lock()
	check := f.DeleteCheck
	f.Checks++
	f.mu.Unlock()
	if check == nil {
		return nil
	}
	return check()
}

func (f *faultStore) before(kind, key string) (inject bool, err error) {
	f.mu.Lock()
	pause := f.Pause
	f.mu.Unlock()
	if pause != nil {
		pause(kind, key)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Ops = append(f.Ops, op{kind, key})
	if f.crashed {
		return false, errCrashed
	}
	match := f.At > 0 && (len(f.Kinds) == 0 || contains(f.Kinds, kind)) && strings.Contains(key, f.KeyPart)
	if !match {
		return false, nil
	}
	f.n++
	if f.n != f.At {
		return false, nil
	}
	if f.Mode == faultFail {
		return false, fmt.Errorf("%s %s: %w", kind, key, errInjected)
	}
	return true, nil
}

func (f *faultStore) after(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Mode == faultCrashAfter {
		f.crashed = true
		return errCrashed
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("response lost: %w", errInjected)
}

// restart models the process coming back: the crash is over, the fault
// is spent.
func (f *faultStore) restart() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashed, f.At = false, 0
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func (f *faultStore) Get(ctx context.Context, key string) ([]byte, string, error) {
	inj, err := f.before("get", key)
	if err != nil {
		return nil, "", err
	}
	b, e, err := f.Store.Get(ctx, key)
	if inj {
		return nil, "", f.after(err)
	}
	return b, e, err
}

func (f *faultStore) List(ctx context.Context, prefix, token string, limit int) (metastore.Page, error) {
	inj, err := f.before("list", prefix)
	if err != nil {
		return metastore.Page{}, err
	}
	p, err := f.Store.List(ctx, prefix, token, limit)
	if inj {
		return metastore.Page{}, f.after(err)
	}
	return p, err
}

func (f *faultStore) PutIfAbsent(ctx context.Context, key string, data []byte) (string, error) {
	inj, err := f.before("create", key)
	if err != nil {
		return "", err
	}
	e, err := f.Store.PutIfAbsent(ctx, key, data)
	if inj {
		return "", f.after(err)
	}
	return e, err
}

func (f *faultStore) PutIfMatch(ctx context.Context, key string, data []byte, etag string) (string, error) {
	inj, err := f.before("cas", key)
	if err != nil {
		return "", err
	}
	e, err := f.Store.PutIfMatch(ctx, key, data, etag)
	if inj {
		return "", f.after(err)
	}
	return e, err
}

func (f *faultStore) DeleteIfMatch(ctx context.Context, key, etag string) error {
	f.mu.Lock()
	check := f.DeleteCheck
	f.mu.Unlock()
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	inj, err := f.before("delete", key)
	if err != nil {
		return err
	}
	err = f.Store.DeleteIfMatch(ctx, key, etag)
	if inj {
		return f.after(err)
	}
	return err
}

// backendCalls counts operations outside the metadata namespaces: any
// key not under ilm/ or decommission/ would be a tier backend object. The
// recovery core has no backend interface, so this must stay zero.
func (f *faultStore) backendCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, o := range f.Ops {
		if !strings.HasPrefix(o.Key, "ilm/") && !strings.HasPrefix(o.Key, "decommission/") {
			n++
		}
	}
	return n
}
