package lifecycle

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDescribe: every action a parsed rule can hold is described in the
// words of the S3 schema, and the filter says what it selects.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name, xml string
		status    string
		filter    string
		actions   []string
	}{
		{"expiration days", `<Rule><ID>a</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule>`,
			"Enabled", "prefix logs/", []string{"Expiration 30 days after creation"}},
		{"date, disabled", `<Rule><Filter></Filter><Status>Disabled</Status><Expiration><Date>2027-01-01T00:00:00Z</Date></Expiration></Rule>`,
			"Disabled", "every object", []string{"Expiration on 2027-01-01"}},
		{"markers", `<Rule><Filter/><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`,
			"Enabled", "every object", []string{"Expiration of expired object delete markers", "AbortIncompleteMultipartUpload 1 day after initiation"}},
		{"noncurrent both", `<Rule><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>7</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`,
			"Enabled", "every object", []string{"NoncurrentVersionExpiration 7 days after becoming noncurrent, keeping 2 newer noncurrent versions"}},
		{"noncurrent count", `<Rule><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays><NewerNoncurrentVersions>1</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`,
			"Enabled", "every object", []string{"NoncurrentVersionExpiration 3 days after becoming noncurrent, keeping 1 newer noncurrent version"}},
		{"and, transitions", `<Rule><Filter><And><Prefix>p/</Prefix><Tag><Key>env</Key><Value>dev</Value></Tag><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan><ObjectSizeLessThan>200</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration><Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition><NoncurrentVersionTransition><NoncurrentDays>0</NoncurrentDays><StorageClass>GLACIER</StorageClass></NoncurrentVersionTransition></Rule>`,
			"Enabled", "prefix p/ and tag env=dev and ObjectSizeGreaterThan 100 and ObjectSizeLessThan 200",
			[]string{"NoncurrentVersionExpiration 1 day after becoming noncurrent", "Transition to GLACIER 30 days after creation", "NoncurrentVersionTransition to GLACIER 0 days after becoming noncurrent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte("<LifecycleConfiguration>" + tc.xml + "</LifecycleConfiguration>"))
			if err != nil {
				t.Fatal(err)
			}
			r := &cfg.Rules[0]
			if r.Status() != tc.status || r.Filter.String() != tc.filter {
				t.Errorf("status %q filter %q, want %q %q", r.Status(), r.Filter.String(), tc.status, tc.filter)
			}
			if diff := cmp.Diff(tc.actions, r.Describe()); diff != "" {
				t.Errorf("Describe (-want +got):\n%s", diff)
			}
		})
	}
}
