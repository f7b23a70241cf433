package decom_test

import (
	"context"
	"errors"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/ilmctl/ilmctl/core/decom"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/internal/decomfixture"
)

// memPool is an in-memory metastore.Reader.
type memPool struct {
	name string
	keys map[string][]byte
	fail string // Get of this key fails
}

func (m *memPool) Name() string { return m.name }

func (m *memPool) Get(_ context.Context, key string) ([]byte, string, error) {
	if key == m.fail {
		return nil, "", errors.New("connection reset")
	}
	b, ok := m.keys[key]
	if !ok {
		return nil, "", metastore.ErrNotFound
	}
	return b, "etag", nil
}

func (m *memPool) List(_ context.Context, prefix, token string, limit int) (metastore.Page, error) {
	var keys []string
	for k := range m.keys {
		if strings.HasPrefix(k, prefix) && k > token {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	p := metastore.Page{}
	if len(keys) > limit {
		keys, p.Truncated = keys[:limit], true
		p.NextToken = keys[limit-1]
	}
	for _, k := range keys {
		p.Objects = append(p.Objects, metastore.Object{Key: k})
	}
	return p, nil
}

func pools(r *decomfixture.Run) (metastore.Reader, []metastore.Reader) {
	p := func(n string) *memPool { return &memPool{name: n, keys: r.Pools[n]} }
	return p(decomfixture.Source), []metastore.Reader{p(decomfixture.TargetA), p(decomfixture.TargetB)}
}

type want struct {
	path   string
	kind   decom.RowKind
	reason decom.Reason
}

// TestVerify is one fixture per case the completion predicate must
// decide; each lists the blocking rows it must produce, and no others.
func TestVerify(t *testing.T) {
	base := decomfixture.Complete()
	rk := base.ReceiptKey
	cases := []struct {
		name string
		run  *decomfixture.Run
		want []want
	}{
		{"complete run", decomfixture.Complete(), nil},
		{"receipt advanced one step past the source", decomfixture.Complete().ReceiptAdvanced(), nil},
		{"missing receipt", decomfixture.Complete().MissingReceipt(), []want{
			{rk(decomfixture.ScopeKey), decom.RowReceipt, decom.ReasonReceiptMissing},
			{decomfixture.ScopeKey, decom.RowRecord, decom.ReasonRecordUncovered},
		}},
		{"extra receipt", decomfixture.Complete().ExtraReceipt(), []want{
			{"decommission/ilm-receipts/" + base.Token + "/ilm/manual-transition/jobs/f0/00/f00000000000400080000000000000ff.json/job_id/f0000000-0000-4000-8000-0000000000ff.json",
				decom.RowReceipt, decom.ReasonReceiptUnexpected},
		}},
		{"digest mismatch", decomfixture.Complete().DigestMismatch(), []want{
			{decom.ManifestKey(base.Token), decom.RowManifest, decom.ReasonManifestDigest},
		}},
		{"non-successor checkpoint", decomfixture.Complete().NonSuccessor(), []want{
			{rk(decomfixture.TxUploaded), decom.RowReceipt, decom.ReasonReceiptNotSuccessor},
			{decomfixture.TxUploaded, decom.RowRecord, decom.ReasonRecordNotSuccessor},
		}},
		{"terminal receipt hiding a nonterminal target copy", decomfixture.Complete().TerminalHidesTarget(), []want{
			{rk(decomfixture.TxTerminal), decom.RowReceipt, decom.ReasonTerminalHidesTarget},
		}},
		{"terminal receipt beside a nonterminal receipt", decomfixture.Complete().TerminalHidesReceipt(), []want{
			{rk(decomfixture.TxTerminal), decom.RowReceipt, decom.ReasonTerminalMissing},
		}},
		{"divergent target copies", decomfixture.Complete().DivergentCopies(), []want{
			{rk(decomfixture.JobKey), decom.RowReceipt, decom.ReasonTargetDivergent},
		}},
		{"unregistered ilm/ path", decomfixture.Complete().Unregistered(), []want{
			{"ilm/future-durable/jobs/one.json", decom.RowRecord, decom.ReasonUnregisteredPath},
		}},
		{"corrupt receipt", decomfixture.Complete().CorruptReceipt(), []want{
			{rk(decomfixture.JobKey), decom.RowReceipt, decom.ReasonReceiptCorrupt},
			{decomfixture.JobKey, decom.RowRecord, decom.ReasonRecordUncovered},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, tgts := pools(c.run)
			rep, err := decom.Verify(context.Background(), c.run.Token, src, tgts)
			if err != nil {
				t.Fatal(err)
			}
			var got []want
			for _, r := range rep.Rows {
				if r.Verdict == decom.VerdictBlocked {
					got = append(got, want{r.Path, r.Kind, r.Reason})
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("blocking rows:\n got %v\nwant %v\nrows %+v", got, c.want, rep.Rows)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("row %d: got %v, want %v", i, got[i], c.want[i])
				}
			}
			if rep.Predicate.Removable != (len(c.want) == 0) {
				t.Errorf("removable = %v with %d blocking rows", rep.Predicate.Removable, len(c.want))
			}
			if len(rep.Predicate.ReadErrors) != 0 {
				t.Errorf("read errors: %v", rep.Predicate.ReadErrors)
			}
		})
	}
}

// TestVerifyCompleteRows: the complete run has one covered row per
// receipt, the advanced transaction is a target successor and the
// terminal one stands for its cleaned-up copy.
func TestVerifyCompleteRows(t *testing.T) {
	run := decomfixture.Complete()
	src, tgts := pools(run)
	rep, err := decom.Verify(context.Background(), run.Token, src, tgts)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]decom.Reason{}
	verdicts := map[string]decom.Verdict{}
	for _, r := range rep.Rows {
		reasons[r.Path], verdicts[r.Path] = r.Reason, r.Verdict
	}
	if reasons[decom.ManifestKey(run.Token)] != decom.ReasonManifestMatches {
		t.Errorf("manifest row: %v", reasons[decom.ManifestKey(run.Token)])
	}
	if got := verdicts[run.ReceiptKey(decomfixture.TxTerminal)]; got != decom.VerdictTerminal {
		t.Errorf("terminal receipt verdict %v", got)
	}
	if got := reasons[run.ReceiptKey(decomfixture.TxTerminal)]; got != decom.ReasonTargetAbsentTerminal {
		t.Errorf("terminal receipt reason %v", got)
	}
	if got := reasons[run.ReceiptKey(decomfixture.TxUploaded)]; got != decom.ReasonTargetMatches {
		t.Errorf("advanced transaction reason %v", got)
	}
	p := rep.Predicate
	if p.Receipts != 6 || p.Expected != 6 || p.SourceRecords != 6 || p.CoveredRecords != 6 || len(rep.Rows) != 7 {
		t.Errorf("predicate %+v, %d rows", p, len(rep.Rows))
	}
}

// TestVerifyReadError: a read failure is never a verdict; the pool is not
// removable and the error is listed.
func TestVerifyReadError(t *testing.T) {
	run := decomfixture.Complete()
	src, tgts := pools(run)
	src.(*memPool).fail = decom.ManifestKey(run.Token)
	rep, err := decom.Verify(context.Background(), run.Token, src, tgts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Predicate.Removable || len(rep.Predicate.ReadErrors) != 1 {
		t.Fatalf("predicate %+v", rep.Predicate)
	}
}

func TestVerifyBadInput(t *testing.T) {
	run := decomfixture.Complete()
	src, tgts := pools(run)
	if _, err := decom.Verify(context.Background(), "abc", src, tgts); !errors.Is(err, decom.ErrBadInput) {
		t.Errorf("bad token: %v", err)
	}
	if _, err := decom.Verify(context.Background(), run.Token, src, nil); !errors.Is(err, decom.ErrBadInput) {
		t.Errorf("no targets: %v", err)
	}
}

// TestReasonsDocumented keeps docs/design/decommission.md#reasons the
// whole vocabulary: every code is in its table, and every code in the
// table exists.
func TestReasonsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/design/decommission.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "\n## Reasons\n")
	table, _, _ = strings.Cut(table, "\n## ")
	known := map[string]bool{}
	for _, r := range decom.Reasons {
		known[string(r)] = true
		if !strings.Contains(table, "| `"+string(r)+"` |") {
			t.Errorf("reason %s is not in docs/design/decommission.md#reasons", r)
		}
	}
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| `") {
			code := strings.TrimPrefix(strings.SplitN(line, "`", 3)[1], "")
			if !known[code] {
				t.Errorf("documented reason %s does not exist", code)
			}
		}
	}
}
