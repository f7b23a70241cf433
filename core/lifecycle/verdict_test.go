package lifecycle

import (
	"testing"
	"time"

	"github.com/ilmctl/ilmctl/core/filer"
)

// ExplainVersion gives the reason behind every decision EvaluateVersion
// makes, the failed filter predicate and the due-time arithmetic, and
// EvaluateVersion is its Match and Applies.
func TestExplainVersionReasons(t *testing.T) {
	gt, lt := evalSize(150), evalSize(50)
	tagged := evalVer("t", evalDay1)
	tagged.Tags = map[string]string{"env": "prod"}
	stamped := evalVer("v1", evalDay1)
	stamped.NoncurrentSinceNs = evalDay3.UnixNano()
	cases := []struct {
		name   string
		rule   Rule
		kind   ActionKind
		obj    *filer.Object
		idx    int
		reason Reason
		failed Predicate
		tag    int
		from   BaseSource
		base   time.Time
		kindIs ActionKind
	}{
		{"disabled", Rule{ID: "r", ExpirationDays: 1}, ExpirationDays, evalObj("k", evalVer("v", evalDay1)), 0, ReasonDisabled, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"prefix", Rule{ID: "r", Enabled: true, ExpirationDays: 1, Filter: Filter{Prefix: "logs/"}}, ExpirationDays, evalObj("k", evalVer("v", evalDay1)), 0, ReasonFilter, PredicatePrefix, 0, BaseNone, time.Time{}, ""},
		{"size on marker", Rule{ID: "r", Enabled: true, ExpirationDays: 1, Filter: Filter{SizeLessThan: lt}}, ExpirationDays, evalObj("k", evalMarker("dm", evalDay1)), 0, ReasonFilter, PredicateSizeOnMarker, 0, BaseNone, time.Time{}, ""},
		{"size greater than", Rule{ID: "r", Enabled: true, ExpirationDays: 1, Filter: Filter{SizeGreaterThan: gt}}, ExpirationDays, evalObj("k", evalVer("v", evalDay1)), 0, ReasonFilter, PredicateSizeGreaterThan, 0, BaseNone, time.Time{}, ""},
		{"size less than", Rule{ID: "r", Enabled: true, ExpirationDays: 1, Filter: Filter{SizeLessThan: lt}}, ExpirationDays, evalObj("k", evalVer("v", evalDay1)), 0, ReasonFilter, PredicateSizeLessThan, 0, BaseNone, time.Time{}, ""},
		{"second tag of an And", Rule{ID: "r", Enabled: true, ExpirationDays: 1, Filter: Filter{And: true, Tags: []Tag{{"env", "prod"}, {"team", "a"}}}}, ExpirationDays, evalObj("k", tagged), 0, ReasonFilter, PredicateTag, 1, BaseNone, time.Time{}, ""},
		{"expiration on noncurrent", Rule{ID: "r", Enabled: true, ExpirationDays: 1}, ExpirationDays, evalObj("k", evalVer("v2", evalDay2), evalVer("v1", evalDay1)), 1, ReasonNotLatest, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"marker with versions", Rule{ID: "r", Enabled: true, ExpirationDays: 1}, ExpirationDays, evalObj("k", evalMarker("dm", evalDay2), evalVer("v1", evalDay1)), 0, ReasonMarkerWithVersions, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"lone marker by Days", Rule{ID: "r", Enabled: true, ExpirationDays: 1}, ExpirationDays, evalObj("k", evalMarker("dm", evalDay2)), 0, ReasonNone, PredicateNone, 0, BaseCreation, evalDay2, ExpiredDeleteMarker},
		{"date on marker", Rule{ID: "r", Enabled: true, ExpirationDate: evalDay5.Truncate(24 * time.Hour)}, ExpirationDate, evalObj("k", evalMarker("dm", evalDay2)), 0, ReasonDeleteMarker, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"date", Rule{ID: "r", Enabled: true, ExpirationDate: evalDay5.Truncate(24 * time.Hour)}, ExpirationDate, evalObj("k", evalVer("v", evalDay2)), 0, ReasonNone, PredicateNone, 0, BaseDate, evalDay5.Truncate(24 * time.Hour), ExpirationDate},
		{"EODM on a version", Rule{ID: "r", Enabled: true, ExpiredObjectDeleteMarker: true}, ExpiredDeleteMarker, evalObj("k", evalVer("v", evalDay2)), 0, ReasonNotDeleteMarker, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"EODM with versions", Rule{ID: "r", Enabled: true, ExpiredObjectDeleteMarker: true}, ExpiredDeleteMarker, evalObj("k", evalMarker("dm", evalDay2), evalVer("v1", evalDay1)), 0, ReasonMarkerWithVersions, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"noncurrent on latest", Rule{ID: "r", Enabled: true, NoncurrentDays: 1}, NoncurrentDays, evalObj("k", evalVer("v", evalDay2)), 0, ReasonLatest, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"noncurrent since stamp", Rule{ID: "r", Enabled: true, NoncurrentDays: 1}, NoncurrentDays, evalObj("k", evalVer("v2", evalDay2), stamped), 1, ReasonNone, PredicateNone, 0, BaseNoncurrentSince, evalDay3, NoncurrentDays},
		{"noncurrent since successor", Rule{ID: "r", Enabled: true, NoncurrentDays: 1}, NoncurrentDays, evalObj("k", evalVer("v2", evalDay2), evalVer("v1", evalDay1)), 1, ReasonNone, PredicateNone, 0, BaseSuccessorCreation, evalDay2, NoncurrentDays},
		{"newer noncurrent kept", Rule{ID: "r", Enabled: true, NewerNoncurrentVersions: 2}, NewerNoncurrent, evalObj("k", evalVer("v3", evalDay3), evalVer("v2", evalDay2), evalVer("v1", evalDay1)), 2, ReasonNewerNoncurrentKept, PredicateNone, 0, BaseNone, time.Time{}, ""},
		{"newer noncurrent due now", Rule{ID: "r", Enabled: true, NewerNoncurrentVersions: 1}, NewerNoncurrent, evalObj("k", evalVer("v3", evalDay3), evalVer("v2", evalDay2), evalVer("v1", evalDay1)), 2, ReasonNone, PredicateNone, 0, BaseNone, time.Time{}, NewerNoncurrent},
		{"upload kind on a version", Rule{ID: "r", Enabled: true, AbortMPUDays: 1}, AbortMPU, evalObj("k", evalVer("v", evalDay1)), 0, ReasonNotVersionAction, PredicateNone, 0, BaseNone, time.Time{}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vd := ExplainVersion(&tc.rule, tc.kind, tc.obj, tc.idx, RoundAWS)
			if vd.Reason != tc.reason || vd.Applies != (tc.reason == ReasonNone) {
				t.Fatalf("reason %s applies %v, want %s", vd.Reason, vd.Applies, tc.reason)
			}
			if vd.Filter.Failed != tc.failed || (tc.failed == PredicateTag && vd.Filter.Tag != tc.tag) {
				t.Errorf("filter %+v, want %s tag %d", vd.Filter, tc.failed, tc.tag)
			}
			if vd.Applies {
				if vd.Due.From != tc.from || !vd.Due.Base.Equal(tc.base) || vd.Match.Kind != tc.kindIs || !vd.Match.Due.Equal(vd.Due.At()) {
					t.Errorf("due math %+v, match %+v; want from %s base %s kind %s", vd.Due, vd.Match, tc.from, tc.base, tc.kindIs)
				}
			}
			m, ok := EvaluateVersion(&tc.rule, tc.kind, tc.obj, tc.idx, RoundAWS)
			if ok != vd.Applies || m != vd.Match {
				t.Errorf("EvaluateVersion %+v %v, ExplainVersion %+v %v", m, ok, vd.Match, vd.Applies)
			}
		})
	}
}

func TestExplainUploadReasons(t *testing.T) {
	up := &filer.Upload{Key: "logs/big", UploadID: "u", Initiated: evalDay1}
	for _, tc := range []struct {
		name   string
		rule   Rule
		reason Reason
		failed Predicate
	}{
		{"no abort action", Rule{ID: "r", Enabled: true, ExpirationDays: 1}, ReasonNotUploadAction, PredicateNone},
		{"disabled", Rule{ID: "r", AbortMPUDays: 1}, ReasonDisabled, PredicateNone},
		{"tag filter", Rule{ID: "r", Enabled: true, AbortMPUDays: 1, Filter: Filter{Tags: []Tag{{"k", "v"}}}}, ReasonFilter, PredicateUploadTagOrSize},
		{"prefix", Rule{ID: "r", Enabled: true, AbortMPUDays: 1, Filter: Filter{Prefix: "tmp/"}}, ReasonFilter, PredicatePrefix},
		{"applies", Rule{ID: "r", Enabled: true, AbortMPUDays: 2, Filter: Filter{Prefix: "logs/"}}, ReasonNone, PredicateNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vd := ExplainUpload(&tc.rule, up, RoundAWS)
			if vd.Reason != tc.reason || vd.Filter.Failed != tc.failed {
				t.Fatalf("reason %s filter %s, want %s %s", vd.Reason, vd.Filter.Failed, tc.reason, tc.failed)
			}
			if vd.Applies && (vd.Due.From != BaseInitiation || !vd.Match.Due.Equal(DueAt(evalDay1, 2, RoundAWS))) {
				t.Errorf("due %+v match %+v", vd.Due, vd.Match)
			}
			m, ok := EvaluateUpload(&tc.rule, up, RoundAWS)
			if ok != vd.Applies || m != vd.Match {
				t.Errorf("EvaluateUpload disagrees: %+v %v", m, ok)
			}
		})
	}
}

// The JSON spellings of the explanation vocabularies are a stable
// interface.
func TestVerdictVocabularies(t *testing.T) {
	for got, want := range map[string]string{
		ReasonDisabled.String(): "rule_disabled", ReasonFilter.String(): "filter", ReasonNotLatest.String(): "not_latest",
		ReasonLatest.String(): "latest", ReasonMarkerWithVersions.String(): "delete_marker_with_versions",
		ReasonDeleteMarker.String(): "delete_marker", ReasonNotDeleteMarker.String(): "not_delete_marker",
		ReasonNewerNoncurrentKept.String(): "newer_noncurrent_kept", ReasonExpiredMarkerKept.String(): "expired_marker_kept",
		ReasonNotVersionAction.String(): "not_a_version_action", ReasonNotUploadAction.String(): "not_an_upload_action",
		PredicatePrefix.String(): "prefix", PredicateTag.String(): "tag", PredicateSizeGreaterThan.String(): "object_size_greater_than",
		PredicateSizeLessThan.String(): "object_size_less_than", PredicateSizeOnMarker.String(): "size_bound_on_delete_marker",
		PredicateUploadTagOrSize.String(): "upload_has_no_tags_or_size", BaseCreation.String(): "creation",
		BaseNoncurrentSince.String(): "noncurrent_since", BaseSuccessorCreation.String(): "successor_creation",
		BaseOwnCreation.String(): "own_creation", BaseInitiation.String(): "upload_initiation", BaseDate.String(): "expiration_date",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}

func TestBytesFreed(t *testing.T) {
	nullV := evalVer(filer.NullVersionID, evalDay1)
	nullV.Size = 7
	obj := evalObj("k", evalVer("v2", evalDay2), nullV)
	for _, tc := range []struct {
		kind ActionKind
		vs   filer.Versioning
		idx  int
		want int64
	}{
		{ExpirationDays, filer.VersioningEnabled, 0, 0},
		{ExpirationDays, filer.VersioningOff, 0, 100},
		{ExpirationDate, filer.VersioningSuspended, 0, 7},
		{NoncurrentDays, filer.VersioningEnabled, 1, 7},
		{NewerNoncurrent, filer.VersioningEnabled, 1, 7},
		{ExpiredDeleteMarker, filer.VersioningEnabled, 0, 0},
		{AbortMPU, filer.VersioningEnabled, 0, 0},
		{NoncurrentDays, filer.VersioningEnabled, 5, 0},
	} {
		if got := BytesFreed(tc.kind, tc.vs, obj, tc.idx); got != tc.want {
			t.Errorf("BytesFreed(%s, %q, %d) = %d, want %d", tc.kind, tc.vs, tc.idx, got, tc.want)
		}
	}
}
