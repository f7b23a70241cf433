package journal

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/envelope"
	"github.com/ilmctl/ilmctl/core/ilmpath"
	"github.com/ilmctl/ilmctl/core/manualjob"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// Protocol is the --protocol grouping of record kinds.
type Protocol string

// Protocols.
const (
	ProtoJournal    Protocol = "tier_delete_journal"
	ProtoManifest   Protocol = "tier_delete_manifest"
	ProtoTransition Protocol = "transition_transaction"
	ProtoManual     Protocol = "manual_transition"
	ProtoDecom      Protocol = "decommission" // receipts and expected-receipt manifests
	ProtoOther      Protocol = "other"        // registered but unsupported, or unregistered
)

// Protocols lists the selectable protocols.
var Protocols = []Protocol{ProtoJournal, ProtoManifest, ProtoTransition, ProtoManual, ProtoDecom, ProtoOther}

// Options configure a scan.
type Options struct {
	Clock    func() time.Time // required
	Sources  SourceProver     // optional
	PageSize int              // list page size; 0 means 1000
	// Artifacts decodes ilmctl's own recovery artifacts (controls,
	// exports, disposition receipts); core/recovery provides it
	// (recovery.DescribeArtifact), which builds on this package. Without
	// it those records are corrupt: undecoded bytes are never trusted.
	Artifacts ArtifactDescriber
}

// ArtifactDescriber strictly decodes the recovery artifact of kind stored
// at key; an error makes the record corrupt.
type ArtifactDescriber func(kind ilmpath.Kind, key string, data []byte) (Artifact, error)

// Artifact is a decoded recovery artifact as the journal shows it. Its
// owner is ilmctl's recovery tooling (docs/design/recovery.md): a live
// control or an unfinished disposition is active, an export or a completed
// disposition is retained history.
type Artifact struct {
	Schema, State, Owner string
	Terminal             bool   // immutable history: no actor may change it
	Reason               string // one line for the classification
	Decoded              any    // the decoded record, for show
}

// Copy is one pool's copy of a record.
type Copy struct {
	Pool         string    `json:"pool"`
	ETag         string    `json:"etag"`
	SHA256       string    `json:"sha256"`
	LastModified time.Time `json:"last_modified"`
}

// Record is one classified durable record (all pool copies of one key).
type Record struct {
	Path           string         `json:"path"`
	Protocol       Protocol       `json:"protocol"`
	Kind           ilmpath.Kind   `json:"kind"`
	Schema         string         `json:"schema"` // schema or "v<N>"
	State          string         `json:"state"`
	Owner          string         `json:"owner"`
	AgeSeconds     *int64         `json:"age_seconds,omitempty"`
	Classification Classification `json:"classification"`
	Decision       Decision       `json:"decision"`
	Reason         string         `json:"reason,omitempty"`
	// KeyFormat says which RustFS derivation a manual-transition scope key
	// matches ("current" or "legacy"), for scope admissions and jobs;
	// empty for other kinds.
	KeyFormat string `json:"key_format,omitempty"`
	// DecidedBy is the path of the record whose row decided this one (a
	// scope admission follows the job it names); empty when the record
	// decided on its own.
	DecidedBy string `json:"decided_by,omitempty"`
	// SourceEvidence is the source lookup's outcome for records that need
	// one; empty when no lookup was made.
	SourceEvidence Evidence `json:"source_evidence,omitempty"`
	Copies         []Copy   `json:"copies"`
	// Decoded is the decoded payload (typed struct) or nil when corrupt.
	Decoded any `json:"-"`
	// Raw is the first copy's bytes.
	Raw []byte `json:"-"`
}

// PoolError is a pool that could not be read completely.
type PoolError struct {
	Pool  string `json:"pool"`
	Error string `json:"error"`
}

// Report is a scan result.
type Report struct {
	Records    []Record    `json:"records"`
	Incomplete bool        `json:"incomplete"`
	PoolErrors []PoolError `json:"pool_errors,omitempty"`
}

// entry is one key's copies while a scan classifies it. payload is the
// decoded record (a pointer to the codec's type) or nil when err is set.
type entry struct {
	key     string
	copies  []Copy
	data    [][]byte
	rec     Record
	loc     ilmpath.Location
	payload any
	err     error
}

// as returns e's payload as a T, or nil when e is nil, undecodable or of
// another kind.
func as[T any](e *entry) *T {
	if e == nil {
		return nil
	}
	p, _ := e.payload.(*T)
	return p
}

// Scan reads every record under ilm/ in every pool and classifies it. A
// pool whose listing fails (including a truncated page without a token)
// marks the report incomplete; records of that pool's failed page are not
// read.
func Scan(ctx context.Context, pools []metastore.Store, opt Options) (*Report, error) {
	if opt.Clock == nil {
		return nil, errors.New("journal.Scan: a clock is required")
	}
	if opt.PageSize == 0 {
		opt.PageSize = 1000
	}
	rep := &Report{}
	byKey := map[string]*entry{}
	for _, s := range pools {
		err := listRoots(ctx, s, opt.PageSize, func(objs []metastore.Object) error {
			for _, o := range objs {
				data, etag, err := s.Get(ctx, o.Key)
				if errors.Is(err, metastore.ErrNotFound) {
					continue // deleted between list and read
				}
				if err != nil {
					return err
				}
				e := byKey[o.Key]
				if e == nil {
					e = &entry{key: o.Key}
					byKey[o.Key] = e
				}
				e.copies = append(e.copies, Copy{Pool: s.Name(), ETag: etag, SHA256: envelope.SHA256Hex(data), LastModified: o.LastModified})
				e.data = append(e.data, data)
			}
			return nil
		})
		if err != nil {
			rep.Incomplete = true
			rep.PoolErrors = append(rep.PoolErrors, PoolError{Pool: s.Name(), Error: err.Error()})
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		decode(byKey[k], opt.Artifacts)
	}
	c := &classifier{ctx: ctx, opt: opt, now: opt.Clock(), byKey: byKey, complete: !rep.Incomplete}
	for _, k := range keys {
		e := byKey[k]
		c.classify(e)
		rep.Records = append(rep.Records, e.rec)
	}
	return rep, nil
}

// DecommissionRoot is the namespace of decommission receipts and
// expected-receipt manifests, scanned beside ilm/ so the journal and
// `ilmctl decom verify` agree on what a pool holds.
const DecommissionRoot = "decommission/"

// listRoots lists every key under ilm/ and under decommission/.
func listRoots(ctx context.Context, s metastore.Store, pageSize int, fn func([]metastore.Object) error) error {
	for _, root := range []string{ilmpath.Root, DecommissionRoot} {
		if err := metastore.ListAll(ctx, s, root, pageSize, fn); err != nil {
			return err
		}
	}
	return nil
}

// Show classifies the one record at key in the context of a full scan
// (membership and binding checks need the other records).
func Show(ctx context.Context, pools []metastore.Store, key string, opt Options) (*Record, *Report, error) {
	rep, err := Scan(ctx, pools, opt)
	if err != nil {
		return nil, nil, err
	}
	for i := range rep.Records {
		if rep.Records[i].Path == key {
			return &rep.Records[i], rep, nil
		}
	}
	return nil, rep, fmt.Errorf("no record at %q in any pool: %w", key, metastore.ErrNotFound)
}

func protocolOf(k ilmpath.Kind) Protocol {
	switch k {
	case ilmpath.KindTierDeleteJournal, ilmpath.KindTierDeleteJournalV6:
		return ProtoJournal
	case ilmpath.KindDispatchRoot, ilmpath.KindDispatchChunk:
		return ProtoManifest
	case ilmpath.KindTransition:
		return ProtoTransition
	case ilmpath.KindManualJob, ilmpath.KindManualScope, ilmpath.KindManualTask, ilmpath.KindManualResult:
		return ProtoManual
	}
	return ProtoOther
}

func decode(e *entry, artifacts ArtifactDescriber) {
	e.rec = Record{Path: e.key, Copies: e.copies, Raw: e.data[0]}
	if strings.HasPrefix(e.key, DecommissionRoot) {
		decodeDecom(e)
		return
	}
	var locErr error
	e.loc, locErr = ilmpath.Parse(e.key)
	e.rec.Kind = e.loc.Kind
	e.rec.Protocol = protocolOf(e.loc.Kind)
	if locErr != nil {
		e.err = locErr
		return
	}
	data := e.data[0]
	if len(data) > e.loc.Namespace.MaxSize {
		e.err = envelope.Errf(string(e.loc.Kind), "", envelope.ErrTooLarge, "%d bytes > %d", len(data), e.loc.Namespace.MaxSize)
		return
	}
	var err error
	switch e.loc.Kind {
	case ilmpath.KindTierDeleteJournal, ilmpath.KindTierDeleteJournalV6:
		var j *tierdelete.Journal
		if j, err = tierdelete.DecodeJournal(data); err == nil {
			err = j.CheckPath(e.key)
			if err == nil && (j.Version == 6) != (e.loc.Kind == ilmpath.KindTierDeleteJournalV6) {
				err = envelope.Errf("tier_delete_journal", "version", envelope.ErrPath, "journal v%d in the wrong namespace", j.Version)
			}
		}
		e.payload = j
	case ilmpath.KindDispatchRoot:
		if tierdelete.IsChunkParent(data) {
			e.payload, err = tierdelete.DecodeParent(e.key, data)
		} else {
			var m *tierdelete.Manifest
			m, err = tierdelete.DecodeManifest(e.key, data)
			if err == nil && m.RootKey() != e.key {
				err = envelope.Errf("tier_delete_manifest", "", envelope.ErrPath, "child manifest stored at the root key")
			}
			e.payload = m
		}
	case ilmpath.KindDispatchChunk:
		var m *tierdelete.Manifest
		m, err = tierdelete.DecodeManifest(e.key, data)
		if err == nil && m.ChunkKey() != e.key {
			err = envelope.Errf("tier_delete_manifest", "", envelope.ErrPath, "manifest does not belong at this chunk key")
		}
		e.payload = m
	case ilmpath.KindTransition:
		e.payload, err = transition.Decode(e.key, data)
	case ilmpath.KindManualJob:
		e.payload, err = manualjob.DecodeJob(e.key, data)
	case ilmpath.KindManualScope:
		e.payload, err = manualjob.DecodeScope(e.key, data)
	case ilmpath.KindManualTask:
		e.payload, err = manualjob.DecodeTask(e.key, data)
	case ilmpath.KindManualResult:
		e.payload, err = manualjob.DecodeResult(e.key, data)
	case ilmpath.KindRecoveryControl, ilmpath.KindRecoveryExport, ilmpath.KindRecoveryDisposition:
		if artifacts == nil {
			err = fmt.Errorf("namespace %s holds ilmctl recovery artifacts; this scan was given no decoder for them", e.loc.Namespace.Name)
			break
		}
		var a Artifact
		if a, err = artifacts(e.loc.Kind, e.key, data); err == nil {
			e.payload = &a
		}
	default:
		err = fmt.Errorf("namespace %s is registered but ilmctl does not decode it yet", e.loc.Namespace.Name)
	}
	if err != nil {
		e.err, e.payload = err, nil
	}
	e.rec.Decoded = e.payload
}
