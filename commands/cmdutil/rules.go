package cmdutil

import (
	"context"
	"fmt"
	coreexplain "github.com/ilmctl/ilmctl/core/explain"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/ilmctl/ilmctl/core/engine"
	"github.com/ilmctl/ilmctl/core/filer"
	"github.com/ilmctl/ilmctl/internal/hint"
)

// Rules is every bucket's lifecycle input as `ilmctl run` and `ilmctl
// explain` read it: one parser, so both see the same rules.
type Rules struct {
	// Listed is every bucket as the store lists it, sorted by name, with
	// each candidate's XML in place of the stored one.
	Listed []filer.Bucket
	// Accepted holds the buckets whose configuration parsed, for
	// engine.Compile; a bucket without a configuration is in neither list.
	Accepted []engine.Bucket
	// Rejected holds the buckets whose XML was rejected: they get no
	// action (fail closed) and are reported.
	Rejected []engine.BucketError
}

// Candidates are lifecycle configurations given with --rules BUCKET=FILE
// in place of the buckets' stored ones: bucket name to its candidate.
type Candidates map[string]Candidate

// Candidate is one --rules value: the file named and the XML it holds.
type Candidate struct {
	File string
	XML  string
}

// RulesFlagHelp is --rules's help line, shared by run and explain.
// The backquoted word is the flag's value name in --help.
const RulesFlagHelp = "preview `BUCKET=FILE`: the lifecycle configuration in FILE in place of BUCKET's stored one (repeatable); nothing is written"

// ReadCandidates reads each --rules BUCKET=FILE value. A value that is not
// BUCKET=FILE, a bucket named twice or an empty file is a usage error; a
// file that cannot be read is a failure (exit 1). Both name the value.
func ReadCandidates(specs []string) (Candidates, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make(Candidates, len(specs))
	for _, s := range specs {
		bucket, file, ok := strings.Cut(s, "=")
		if !ok || bucket == "" || file == "" {
			return nil, hint.With(Usage("--rules %q: want BUCKET=FILE", s), "for example --rules logs=testdata/rules/accepted.xml")
		}
		if prev, dup := out[bucket]; dup {
			return nil, Usage("--rules names bucket %s twice (%s and %s): give one candidate per bucket", bucket, prev.File, file)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--rules %s: %w", s, err)
		}
		if len(data) == 0 {
			return nil, Usage("--rules %s: %s is empty; a candidate configuration needs at least one <Rule>", s, file)
		}
		out[bucket] = Candidate{File: file, XML: string(data)}
	}
	return out, nil
}

// Buckets lists the candidates' bucket names, sorted.
func (c Candidates) Buckets() []string {
	names := make([]string, 0, len(c))
	for b := range c {
		names = append(names, b)
	}
	sort.Strings(names)
	return names
}

// LoadRules lists the buckets and parses each one's lifecycle XML, or its
// candidate's in its place. A candidate for a bucket the store does not
// list is a failure (exit 1), as every --bucket the filer lacks is (see
// NoSuchBucket).
func LoadRules(ctx context.Context, st filer.Store, cands Candidates) (Rules, error) {
	bs, err := st.ListBuckets(ctx)
	if err != nil {
		return Rules{}, fmt.Errorf("list buckets: %w", err)
	}
	if len(cands) > 0 {
		bs = slices.Clone(bs)
		for _, name := range cands.Buckets() {
			i := slices.IndexFunc(bs, func(b filer.Bucket) bool { return b.Name == name })
			if i < 0 {
				return Rules{}, hint.With(fmt.Errorf("--rules %s=%s: %w %q on this filer: check the name", name, cands[name].File, coreexplain.ErrNoBucket, name),
					"'ilmctl filer ls' with the same --filer lists its buckets")
			}
			bs[i].LifecycleXML = cands[name].XML
		}
	}
	out := Rules{Listed: bs}
	out.Accepted, out.Rejected = engine.ParseBuckets(bs)
	return out, nil
}

// RejectedConfiguration is how a pass reports a bucket whose lifecycle
// configuration the parser rejected (engine.BucketError), on one line:
// the bucket, then the parser's AWS error code and text.
func RejectedConfiguration(be engine.BucketError) error {
	return fmt.Errorf("bucket %s: lifecycle configuration rejected, no action taken on it: %w", be.Bucket, be.Err)
}
