package journal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/core/tierdelete"
	"github.com/ilmctl/ilmctl/core/transition"
)

// fakeProver answers every lookup with one evidence value (and error) and
// records what it was asked.
type fakeProver struct {
	ev    Evidence
	err   error
	asked []SourceSubject
}

func (f *fakeProver) SourceEvidence(_ context.Context, s SourceSubject) (Evidence, error) {
	f.asked = append(f.asked, s)
	return f.ev, f.err
}

// label names the fixture records whose decision depends on source
// evidence, independent of their digest keys.
func label(r Record) string {
	switch d := r.Decoded.(type) {
	case *tierdelete.Journal:
		if d.Source != nil {
			return fmt.Sprintf("v%d %s %s", d.Version, d.EffectiveState(), d.Source.Object)
		}
	case *transition.Transaction:
		return "tx " + string(d.State)
	}
	return ""
}

type outcome struct {
	c Classification
	d Decision
}

var (
	nsp       = outcome{NeedsSourceProof, Retain}
	ambiguous = outcome{RetainedAmbiguous, Retain}
)

// TestSourceEvidenceRows covers the source-present / source-absent rows of
// the journal and transition-transaction decision tables
// (docs/design/ilm-records.md#journals, #transition-transactions) for
// every evidence value a prover can return, on the committed fixtures.
func TestSourceEvidenceRows(t *testing.T) {
	subjects := []string{
		"v5 Prepared v5-Prepared", "v5 Dispatched v5-Dispatched", "v5 Committed v5-Committed",
		"v6 Dispatched auth/a", "v6 Committed done/a",
		"tx local_commit_started", "tx cleanup_pending",
	}
	all := func(o outcome) []outcome { return []outcome{o, o, o, o, o, o, o} }
	cases := []struct {
		name   string
		prover *fakeProver // nil: no --filer
		want   []outcome   // in subjects order
	}{
		{"no prover", nil, all(nsp)},
		{"present", &fakeProver{ev: EvidencePresent}, []outcome{
			{Recoverable, AbortRecord}, {Active, Retain}, {Active, Retain},
			ambiguous, ambiguous,
			nsp, nsp, // the tuple is in xl.meta: same vs differs is unknown
		}},
		{"source absent, free-versions unexamined", &fakeProver{ev: EvidenceSourceAbsent}, []outcome{
			nsp, nsp, nsp, nsp, nsp,
			ambiguous, {Recoverable, DeleteCandidateThenRecord},
		}},
		{"source and free-version absent", &fakeProver{ev: EvidenceAbsent}, []outcome{
			{Recoverable, CommitThenDeleteRemote}, {Recoverable, CommitThenDeleteRemote}, {Recoverable, DeleteRemoteIdempotent},
			{Recoverable, CommitThenWaitForManifest}, {Recoverable, DeleteRemoteIdempotent},
			ambiguous, {Recoverable, DeleteCandidateThenRecord},
		}},
		{"same tuple", &fakeProver{ev: EvidenceSame}, []outcome{
			ambiguous, ambiguous, ambiguous, ambiguous, ambiguous,
			{Terminal, DeleteRecord}, {Terminal, DeleteRecord},
		}},
		{"tuple differs", &fakeProver{ev: EvidenceDiffers}, []outcome{
			ambiguous, ambiguous, ambiguous, ambiguous, ambiguous,
			ambiguous, {Recoverable, DeleteCandidateThenRecord},
		}},
		{"uncertain", &fakeProver{ev: EvidenceUncertain}, all(ambiguous)},
		{"error is never absence", &fakeProver{ev: EvidenceAbsent, err: errors.New("filer unreachable")}, all(ambiguous)},
		{"unknown evidence", &fakeProver{ev: "maybe"}, all(ambiguous)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opt := Options{Clock: fixedClock}
			if tc.prover != nil {
				opt.Sources = tc.prover
			}
			rep, err := Scan(context.Background(), pools(buildFixtures()), opt)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Record{}
			for _, r := range rep.Records {
				if l := label(r); l != "" {
					got[l] = r
				}
			}
			for i, s := range subjects {
				r, ok := got[s]
				if !ok {
					t.Fatalf("%s: not in the fixtures", s)
				}
				if w := tc.want[i]; r.Classification != w.c || r.Decision != w.d {
					t.Errorf("%s: got %s/%s (%s), want %s/%s", s, r.Classification, r.Decision, r.Reason, w.c, w.d)
				}
				if tc.prover == nil && r.SourceEvidence != EvidenceNone {
					t.Errorf("%s: evidence %q without a prover", s, r.SourceEvidence)
				}
			}
			if tc.prover != nil && len(tc.prover.asked) != len(subjects) {
				t.Errorf("prover asked %d times, want %d (only records whose row needs source evidence)", len(tc.prover.asked), len(subjects))
			}
		})
	}
}

// TestSourceSubjectsAreExact checks that the prover is asked for the exact
// recorded identity.
func TestSourceSubjectsAreExact(t *testing.T) {
	p := &fakeProver{ev: EvidenceUncertain}
	if _, err := Scan(context.Background(), pools(buildFixtures()), Options{Clock: fixedClock, Sources: p}); err != nil {
		t.Fatal(err)
	}
	mt := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	var sawJournal, sawTx bool
	for _, s := range p.asked {
		switch s.Object {
		case "v5-Prepared":
			sawJournal = true
			if s.Bucket != "photos" || s.VersionID != "11111111-2222-4333-8444-555555555555" || s.ETag == nil || *s.ETag != "etag-v5-Prepared" ||
				s.Size != nil || s.ModTimeUnixNanos == nil || *s.ModTimeUnixNanos != mt || s.RemoteVersionID != "null" || s.TierName != "WARM" {
				t.Errorf("journal subject %+v", s)
			}
		case "cat.jpg":
			sawTx = true
			if s.VersionID != "11111111-2222-4333-8444-555555555555" || *s.ETag != "abc" || *s.Size != 42 || *s.ModTimeUnixNanos != 1_700_000_000_000_000_000 ||
				s.RemoteVersionID != "remote-v1" || !strings.HasPrefix(s.RemoteObject, "ilm/transition-transactions/") {
				t.Errorf("transaction subject %+v", s)
			}
		}
	}
	if !sawJournal || !sawTx {
		t.Fatalf("subjects not asked: %+v", p.asked)
	}
}

// TestUnmatchableSourceIsAmbiguous: a record whose source identity cannot
// be stated exactly is never looked up and never treated as absent.
func TestUnmatchableSourceIsAmbiguous(t *testing.T) {
	for name, mut := range map[string]func(*tierdelete.Source){
		"mod_time not RFC 3339":    func(s *tierdelete.Source) { s.ModTime = sp("yesterday") },
		"versioned without an id":  func(s *tierdelete.Source) { s.VersionID = nil },
		"versioned with empty id":  func(s *tierdelete.Source) { s.VersionID = sp("") },
		"mod_time with bad offset": func(s *tierdelete.Source) { s.ModTime = sp("2025-06-01T00:00:00+25:00") },
	} {
		t.Run(name, func(t *testing.T) {
			src := source("odd")
			mut(src)
			j := &tierdelete.Journal{Version: 5, ObjName: "remote/odd", VersionID: "null", TierName: "WARM", BackendIdentity: bid(5),
				VersionIDExact: bp(true), VersionState: vs(tierdelete.VersionSuspendedNull), State: js(tierdelete.Committed), Source: src}
			pool := &mem{name: "pool-a", objs: map[string][]byte{j.CanonicalKey(): j.Encode()}}
			p := &fakeProver{ev: EvidenceAbsent}
			rep, err := Scan(context.Background(), []metastore.Store{pool}, Options{Clock: fixedClock, Sources: p})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Records[0]
			if r.Classification != RetainedAmbiguous || r.Decision != Retain || r.SourceEvidence != EvidenceUncertain || len(p.asked) != 0 {
				t.Fatalf("got %s/%s evidence %q (%s), asked %d", r.Classification, r.Decision, r.SourceEvidence, r.Reason, len(p.asked))
			}
		})
	}
}

func TestJournalSubjectNullVersion(t *testing.T) {
	src := source("u")
	src.VersionID, src.Versioned = nil, false
	sub, err := journalSubject(&tierdelete.Journal{Version: 5, Source: src})
	if err != nil || sub.VersionID != filer.NullVersionID {
		t.Fatalf("got %q, %v; an unversioned source is the null version", sub.VersionID, err)
	}
}

// lookup is a fake filer for FilerSources.
type lookup struct {
	obj   filer.Object
	found bool
	err   error
}

func (l lookup) LookupObject(context.Context, string, string) (filer.Object, bool, error) {
	return l.obj, l.found, l.err
}

func TestFilerSources(t *testing.T) {
	const vid = "11111111-2222-4333-8444-555555555555"
	mt := int64(1_700_000_000_000_000_000)
	exact := filer.Version{VersionID: vid, MtimeNs: mt, Size: 42, ETag: "abc"}
	other := filer.Version{VersionID: "22222222-2222-4333-8444-555555555555", MtimeNs: mt + 1, Size: 42, ETag: "abc"}
	found := func(vs ...filer.Version) lookup {
		return lookup{obj: filer.Object{Key: "cat.jpg", Versions: vs}, found: true}
	}
	with := func(f func(*filer.Version)) filer.Version { v := exact; f(&v); return v }
	etag, size := "abc", int64(42)
	full := SourceSubject{Bucket: "photos", Object: "cat.jpg", VersionID: vid, ETag: &etag, Size: &size, ModTimeUnixNanos: &mt}
	cases := []struct {
		name    string
		l       lookup
		sub     SourceSubject
		want    Evidence
		errText string // substring of the error; "" means no error
	}{
		{"exact version present", found(other, exact), full, EvidencePresent, ""},
		{"present under a newer delete marker", found(filer.Version{VersionID: "dm", DeleteMarker: true, MtimeNs: mt + 5}, exact), full, EvidencePresent, ""},
		{"quoted etag in the listing", found(with(func(v *filer.Version) { v.ETag = `"abc"` })), full, EvidencePresent, ""},
		{"only the version id recorded", found(with(func(v *filer.Version) { v.ETag = "zzz" })), SourceSubject{Bucket: "photos", Object: "cat.jpg", VersionID: vid}, EvidencePresent, ""},
		{"null version", found(filer.Version{VersionID: filer.NullVersionID, MtimeNs: mt, Size: 42, ETag: "abc"}),
			SourceSubject{Bucket: "photos", Object: "cat.jpg", VersionID: filer.NullVersionID, ETag: &etag}, EvidencePresent, ""},
		{"key absent", lookup{}, full, EvidenceSourceAbsent, ""},
		{"only other versions", found(other), full, EvidenceSourceAbsent, ""},
		{"lookup error", lookup{err: errors.New("connection refused")}, full, EvidenceUncertain, "filer lookup failed: connection refused"},
		{"etag differs", found(with(func(v *filer.Version) { v.ETag = "abd" })), full, EvidenceUncertain, `etag "abd", recorded "abc"`},
		{"size differs", found(with(func(v *filer.Version) { v.Size = 43 })), full, EvidenceUncertain, "size 43, recorded 42"},
		{"mod time differs", found(with(func(v *filer.Version) { v.MtimeNs = mt + 1 })), full, EvidenceUncertain, "mod time"},
		{"second-precision mod time", found(with(func(v *filer.Version) { v.MtimeNs = mt - mt%1e9 + 1e9 })), full, EvidenceUncertain, "mod time"},
		{"version id on a delete marker", found(filer.Version{VersionID: vid, DeleteMarker: true, MtimeNs: mt}), full, EvidenceUncertain, "delete marker"},
		{"version id listed twice", found(exact, exact), full, EvidenceUncertain, "2 times"},
		{"not found yet versions listed", lookup{obj: filer.Object{Versions: []filer.Version{exact}}}, full, EvidenceUncertain, "not found"},
		{"subject without version id", found(exact), SourceSubject{Bucket: "photos", Object: "cat.jpg"}, EvidenceUncertain, "version id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := FilerSources{Filer: tc.l}.SourceEvidence(context.Background(), tc.sub)
			if ev != tc.want {
				t.Errorf("evidence %q, want %q (err %v)", ev, tc.want, err)
			}
			switch {
			case tc.errText == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)):
				t.Errorf("error %v, want it to mention %q", err, tc.errText)
			case err != nil && (strings.Contains(err.Error(), "photos") || strings.Contains(err.Error(), "cat.jpg")):
				t.Errorf("error %q names the bucket or object", err)
			}
		})
	}
}
