package journal

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ilmctl/ilmctl/commands/cmdutil"
	"github.com/ilmctl/ilmctl/core/envelope"
	corejournal "github.com/ilmctl/ilmctl/core/journal"
	"github.com/ilmctl/ilmctl/core/metastore"
	"github.com/ilmctl/ilmctl/render"
)

// A record's ID is the SHA-256 of its path, in hex, shown as git shows a
// commit: its first render.ShortIDLen characters, more when two records of
// the scan share them. The digests inside paths would not do: a task's
// path holds two (its job's and its own), a job's a UUID, and a task and
// its result end in the same digest. The ID is only a handle for 'journal
// show'; paths stay the records' names, in -o wide and -o json.

// minIDLen is the shortest ID prefix 'journal show' resolves, as git's.
const minIDLen = 4

func recordDigest(path string) string { return envelope.SHA256Hex([]byte(path)) }

// shortIDs maps each record's path to its short ID, abbreviated against
// every record of the scan (not only the ones a filter shows), so an ID is
// the same in every listing of one scan and in 'journal show'.
func shortIDs(recs []corejournal.Record) map[string]string {
	digests := make([]string, len(recs))
	for i, r := range recs {
		digests[i] = recordDigest(r.Path)
	}
	short := render.Abbrev(digests, render.ShortIDLen)
	out := make(map[string]string, len(recs))
	for i, r := range recs {
		out[r.Path] = short[digests[i]]
	}
	return out
}

// isID reports whether a 'journal show' argument is an ID rather than a
// path: paths always hold a slash.
func isID(arg string) bool { return !strings.Contains(arg, "/") }

// findRecord finds the record 'journal show' names: by its path, as
// 'journal ls -o wide' prints it, or by its ID (at least minIDLen leading
// hex characters of one).
func findRecord(ctx context.Context, pools []metastore.Store, arg string, opt corejournal.Options) (*corejournal.Record, *corejournal.Report, error) {
	if !isID(arg) {
		return corejournal.Show(ctx, pools, arg, opt)
	}
	if len(arg) < minIDLen || strings.Trim(strings.ToLower(arg), "0123456789abcdef") != "" {
		return nil, nil, cmdutil.Usage("journal show %q: give a record's PATH (ilm/...) or its ID from 'journal ls' (at least %d hex characters)", arg, minIDLen)
	}
	rep, err := corejournal.Scan(ctx, pools, opt)
	if err != nil {
		return nil, nil, err
	}
	rec, err := resolveID(rep.Records, arg)
	return rec, rep, err
}

// resolveID finds the one record whose ID begins with id (hex, any case).
func resolveID(recs []corejournal.Record, id string) (*corejournal.Record, error) {
	prefix := strings.ToLower(id)
	var matches []int
	for i, r := range recs {
		if strings.HasPrefix(recordDigest(r.Path), prefix) {
			matches = append(matches, i)
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("no record with ID %s in any pool: %w", id, metastore.ErrNotFound)
	case 1:
		return &recs[matches[0]], nil
	}
	ids := shortIDs(recs)
	var cands []string
	for _, i := range matches {
		cands = append(cands, ids[recs[i].Path]+" "+recs[i].Path)
	}
	sort.Strings(cands)
	return nil, cmdutil.Usage("ID %s is ambiguous: %d records begin with it (%s); give more characters", id, len(cands), strings.Join(cands, ", "))
}
