package journal

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// Evidence is the outcome of an all-pool source / free-version lookup for
// one v5/v6 journal or one local_commit_started / cleanup_pending
// transition transaction. The values are reported as source_evidence in
// `journal ls -o json` and are a stable interface (docs/journal.md).
type Evidence string

// Evidence values. Only EvidenceAbsent, EvidenceSame and EvidenceDiffers
// need xl.meta (free-versions, transition tuples); no prover in ilmctl can
// produce them today, so they exist for a future xl.meta-aware prover and
// for tests of the decision table.
const (
	// EvidenceNone: no lookup was performed (no --filer).
	EvidenceNone Evidence = ""
	// EvidencePresent: the exact recorded source version is present. For a
	// journal that is "source/free-version present"; for a transaction it
	// says nothing about the version's transition tuple.
	EvidencePresent Evidence = "present"
	// EvidenceSourceAbsent: a successful lookup holds no version with the
	// source's version id. Free-versions were not examined, so this is not
	// the all-pool "source/free-version absent" a journal row needs.
	EvidenceSourceAbsent Evidence = "source_absent"
	// EvidenceAbsent: the exact source and any free-version carrying its
	// tier tuple are absent in every pool.
	EvidenceAbsent Evidence = "absent"
	// EvidenceSame: xl.meta holds the transaction's transition tuple
	// (TRANSITION_COMPLETE, same remote object, tier and remote version).
	EvidenceSame Evidence = "same"
	// EvidenceDiffers: the source is present but its transition tuple
	// differs from the transaction's.
	EvidenceDiffers Evidence = "differs"
	// EvidenceUncertain: the lookup failed, or what it found neither proves
	// the exact source present nor proves it absent (identity mismatch,
	// duplicate versions, unusable recorded identity). Never absence.
	EvidenceUncertain Evidence = "uncertain"
)

// SourceSubject is what a source lookup must find: the exact local source
// version a record was written for, as the record stores it.
type SourceSubject struct {
	Bucket, Object string
	// VersionID is the source version id as an S3 listing spells it: the
	// recorded id, or "null" for the null version (a source recorded
	// without an id because its bucket was unversioned or suspended).
	VersionID string
	// Recorded identity; nil when the record does not store the field.
	// Every non-nil field must match for EvidencePresent.
	ETag             *string
	Size             *int64
	ModTimeUnixNanos *int64
	// DataDir is recorded but no filer exposes it; it is never compared.
	DataDir string
	// Transition tuple (transactions only): remote object, tier and
	// remote version id as the record holds them.
	RemoteObject, TierName, RemoteVersionID string
}

// SourceProver answers source / free-version lookups across all pools.
// A nil prover means no lookup is possible and affected records are
// needs_source_proof. An error always counts as EvidenceUncertain,
// whatever Evidence accompanies it.
type SourceProver interface {
	SourceEvidence(ctx context.Context, s SourceSubject) (Evidence, error)
}

// journalSubject builds the lookup subject of a v5/v6 journal. The error
// says why the recorded identity cannot be matched exactly.
func journalSubject(j *tierdelete.Journal) (SourceSubject, error) {
	s := j.Source
	sub := SourceSubject{Bucket: s.Bucket, Object: s.Object, ETag: s.ETag, RemoteObject: j.ObjName, TierName: j.TierName, RemoteVersionID: j.VersionID}
	if s.DataDir != nil {
		sub.DataDir = *s.DataDir
	}
	switch {
	case s.VersionID != nil && *s.VersionID != "":
		sub.VersionID = *s.VersionID
	case s.Versioned:
		return sub, fmt.Errorf("source is versioned but records no version id")
	default:
		sub.VersionID = filer.NullVersionID
	}
	if s.ModTime != nil {
		ns, err := parseModTime(*s.ModTime)
		if err != nil {
			return sub, err
		}
		sub.ModTimeUnixNanos = &ns
	}
	return sub, nil
}

// transactionSubject builds the lookup subject of a transition
// transaction: version id, mod time, size and ETag as recorded.
func transactionSubject(t *transition.Transaction) SourceSubject {
	s := t.Source
	etag, size, mt := s.ETag, s.Size, s.ModTimeUnixNanos
	sub := SourceSubject{Bucket: s.Bucket, Object: s.Object, VersionID: filer.NullVersionID, ETag: &etag, Size: &size, ModTimeUnixNanos: &mt,
		DataDir: s.DataDir, RemoteObject: t.RemoteObject, TierName: t.TierName}
	if s.VersionID != nil {
		sub.VersionID = *s.VersionID
	}
	if t.RemoteVersion.VersionID != nil {
		sub.RemoteVersionID = *t.RemoteVersion.VersionID
	}
	return sub
}

// VersionLookup is the part of filer.Store a source lookup needs.
type VersionLookup interface {
	LookupObject(ctx context.Context, bucket, key string) (obj filer.Object, found bool, err error)
}

// FilerSources proves source presence or absence through a filer's view of
// the object namespace (every version of a key, across all pools). A filer
// shows neither xl.meta free-versions nor transition tuples, so it answers
// only EvidencePresent, EvidenceSourceAbsent or EvidenceUncertain:
//
//   - present: exactly one non-delete-marker version carries the source's
//     version id and every recorded field (ETag, size, mod time) matches;
//   - source_absent: the lookup succeeded and no version carries the id;
//   - uncertain (with an error saying why): the lookup failed, or the id
//     is found with a different identity, twice, or on a delete marker.
type FilerSources struct{ Filer VersionLookup }

// SourceEvidence implements SourceProver. Its own messages name no bucket
// or object, so redacted `journal show` output stays redacted; a failed
// lookup wraps the filer's error as the filer wrote it.
func (f FilerSources) SourceEvidence(ctx context.Context, s SourceSubject) (Evidence, error) {
	if s.Bucket == "" || s.Object == "" || s.VersionID == "" {
		return EvidenceUncertain, fmt.Errorf("source identity incomplete: bucket, object and version id are required")
	}
	obj, found, err := f.Filer.LookupObject(ctx, s.Bucket, s.Object)
	if err != nil {
		return EvidenceUncertain, fmt.Errorf("filer lookup failed: %w", err)
	}
	if !found {
		if len(obj.Versions) > 0 {
			return EvidenceUncertain, fmt.Errorf("filer reports the key not found but lists %d versions", len(obj.Versions))
		}
		return EvidenceSourceAbsent, nil
	}
	var match []filer.Version
	for _, v := range obj.Versions {
		if v.VersionID == s.VersionID {
			match = append(match, v)
		}
	}
	switch len(match) {
	case 0:
		return EvidenceSourceAbsent, nil
	case 1:
	default:
		return EvidenceUncertain, fmt.Errorf("filer lists source version %s %d times", s.VersionID, len(match))
	}
	v := match[0]
	if v.DeleteMarker {
		return EvidenceUncertain, fmt.Errorf("source version %s is a delete marker in the filer", s.VersionID)
	}
	var diff []string
	if s.ETag != nil && unquote(*s.ETag) != unquote(v.ETag) {
		diff = append(diff, fmt.Sprintf("etag %q, recorded %q", v.ETag, *s.ETag))
	}
	if s.Size != nil && *s.Size != v.Size {
		diff = append(diff, fmt.Sprintf("size %d, recorded %d", v.Size, *s.Size))
	}
	if s.ModTimeUnixNanos != nil && *s.ModTimeUnixNanos != v.MtimeNs {
		diff = append(diff, fmt.Sprintf("mod time %s, recorded %s", fmtNs(v.MtimeNs), fmtNs(*s.ModTimeUnixNanos)))
	}
	if len(diff) > 0 {
		return EvidenceUncertain, fmt.Errorf("filer's version %s is not the recorded source: %s", s.VersionID, strings.Join(diff, "; "))
	}
	return EvidencePresent, nil
}

// unquote drops one pair of surrounding double quotes: S3 listings quote
// ETags, xl.meta does not; the value itself must still match exactly.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

func fmtNs(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
