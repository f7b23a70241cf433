//go:build integration

// The decommission checks against s3:// metadata pools on the S3 gateway
// of the SeaweedFS that scripts/seaweedfs.sh starts (`make
// test-integration`; ILMCTL_IT_S3, ILMCTL_IT_ACCESS_KEY and
// ILMCTL_IT_SECRET_KEY name it). Each pool of a fixture run is a prefix of
// one fresh bucket; the verdicts must be the ones the directory pools get.
package decom

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
	"github.com/ilmctl/ilmctl/internal/itest"
)

func TestS3Verify(t *testing.T) {
	endpoint, access, secret := itest.S3Env(t)
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	admin := itest.NewClient(endpoint, access, secret)
	for _, c := range []struct {
		name    string
		run     *decomfixture.Run
		code    int
		reasons []string
	}{
		{"complete", decomfixture.Complete(), 0, nil},
		{"missing receipt", decomfixture.Complete().MissingReceipt(), cmdutil.ExitBlocked, []string{"receipt_missing", "record_uncovered"}},
		{"extra receipt", decomfixture.Complete().ExtraReceipt(), cmdutil.ExitBlocked, []string{"receipt_unexpected"}},
		{"digest mismatch", decomfixture.Complete().DigestMismatch(), cmdutil.ExitBlocked, []string{"manifest_digest_mismatch"}},
		{"non-successor", decomfixture.Complete().NonSuccessor(), cmdutil.ExitBlocked, []string{"receipt_not_successor", "record_not_successor"}},
		{"terminal hides target copy", decomfixture.Complete().TerminalHidesTarget(), cmdutil.ExitBlocked, []string{"terminal_hides_target_copy"}},
		{"unregistered path", decomfixture.Complete().Unregistered(), cmdutil.ExitBlocked, []string{"unregistered_path"}},
		{"corrupt receipt", decomfixture.Complete().CorruptReceipt(), cmdutil.ExitBlocked, []string{"receipt_corrupt", "record_uncovered"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bucket := admin.CreateBucket(t, "ilmctl-decom")
			url := func(pool string) string { return "s3://" + endpoint + "/" + bucket + "/" + pool }
			for pool, keys := range c.run.Pools {
				for k, b := range keys {
					admin.PutObject(t, bucket, pool+"/"+k, string(b), nil)
				}
			}
			before := listAll(t, admin, bucket)
			out, code := execute(t, "verify", "--run-token", c.run.Token, "--meta", url(decomfixture.Source),
				"--meta", url(decomfixture.TargetA), "--meta", url(decomfixture.TargetB), "-o", "json")
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			if i := strings.Index(out, "\nerror: "); i >= 0 {
				out = out[:i]
			}
			var rep struct {
				Predicate struct {
					Removable  bool           `json:"removable"`
					Blocking   map[string]int `json:"blocking"`
					ReadErrors []string       `json:"read_errors"`
				} `json:"predicate"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got []string
			for r := range rep.Predicate.Blocking {
				got = append(got, r)
			}
			sort.Strings(got)
			want := append([]string(nil), c.reasons...)
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") || len(rep.Predicate.ReadErrors) != 0 {
				t.Errorf("blocking %v, read errors %v; want %v", got, rep.Predicate.ReadErrors, want)
			}
			if after := listAll(t, admin, bucket); after != before {
				t.Error("verify changed the bucket")
			}
			if c.code == 0 {
				ls, code := execute(t, "receipts", "ls", "--run-token", c.run.Token, "--meta", url(decomfixture.TargetA), "-o", "json")
				if code != 0 || strings.Count(ls, `"kind": "receipt"`) != 6 {
					t.Errorf("receipts ls: exit %d\n%s", code, ls)
				}
			}
		})
	}
}

// listAll is every object version and upload of bucket, one string, to
// prove a command wrote nothing.
func listAll(t *testing.T, admin *itest.S3, bucket string) string {
	versions, uploads := admin.ListAll(t, bucket)
	return strings.Join(versions, "\n") + "\n#\n" + strings.Join(uploads, "\n")
}
