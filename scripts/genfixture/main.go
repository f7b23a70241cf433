// Command genfixture writes an embedded-filer fixture (the JSON document
// `ilmctl filer load` reads, docs/embedded-filer.md#fixture-format) of about N object
// versions, for the benchmarks and by hand. It is a benchmark helper, not
// part of ilmctl.
//
//	go run ./scripts/genfixture -versions 1000000 -due 0.5 >fixture.json
//	go run ./scripts/genfixture -versions 100000 -mix off,enabled,suspended -o fx.json
//
// The output is deterministic (the same flags give the same bytes) and
// written as a stream: memory does not grow with -versions.
//
// Buckets come from -mix, one per entry, and share the versions evenly:
//
//   - off: unversioned, one version per key, Expiration Days 30.
//   - enabled: versioning Enabled, -per-key versions per key (oldest
//     first), NoncurrentVersionExpiration NoncurrentDays 7 and Expiration
//     Days 90.
//   - suspended: versioning Suspended, like enabled but the latest is the
//     null version, Expiration Days 30 and NoncurrentDays 7.
//
// A key is due (every version of it past its rule) with probability -due,
// drawn from -seed; a key not due was written within the last 5 days
// before -now (with -recent D: its latest version within D before -now,
// at least an hour before it), so no rule reaches it. With the default mix
// (off,enabled) and -per-key 3 about -due of all versions are due.
//
// Keys are named <-key-prefix><n>.dat. A fixture that repeats -mix and
// -prefix adds its keys to the buckets another load made (ilmctl filer
// load adds to a bucket whose configuration a fixture repeats), so a
// different -key-prefix and -recent write "a day of changes":
//
//	go run ./scripts/genfixture -versions 10000 -due 0 -recent 20h -key-prefix c/ -now 2026-12-02T00:00:00Z
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

const day = 24 * time.Hour

type profile struct {
	versioning string
	xml        string
	// dueAge is how long before now a due key's latest version was
	// written: past every rule of the profile.
	dueAge time.Duration
}

var profiles = map[string]profile{
	"off": {versioning: "Off", dueAge: 31 * day, xml: `<LifecycleConfiguration><Rule><ID>expire-30d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>` +
		`<Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>`},
	"enabled": {versioning: "Enabled", dueAge: 91 * day, xml: `<LifecycleConfiguration><Rule><ID>noncurrent-7d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>` +
		`<NoncurrentVersionExpiration><NoncurrentDays>7</NoncurrentDays></NoncurrentVersionExpiration></Rule>` +
		`<Rule><ID>expire-90d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><Expiration><Days>90</Days></Expiration></Rule></LifecycleConfiguration>`},
	"suspended": {versioning: "Suspended", dueAge: 31 * day, xml: `<LifecycleConfiguration><Rule><ID>expire-30d</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status>` +
		`<Expiration><Days>30</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>7</NoncurrentDays></NoncurrentVersionExpiration></Rule></LifecycleConfiguration>`},
}

type options struct {
	versions  int
	due       float64
	perKey    int
	mix       []string
	now       time.Time
	seed      uint64
	prefix    string
	keyPrefix string
	recent    time.Duration
}

func main() {
	var (
		o        options
		mix, now string
		out      string
	)
	flag.IntVar(&o.versions, "versions", 100000, "object versions to write, about")
	flag.Float64Var(&o.due, "due", 0.5, "fraction of keys (so of versions) due at -now, 0 to 1")
	flag.IntVar(&o.perKey, "per-key", 3, "versions per key in versioned buckets")
	flag.StringVar(&mix, "mix", "off,enabled", "comma-separated bucket profiles: off, enabled, suspended")
	flag.StringVar(&now, "now", "2026-11-30T00:00:00Z", "the pass clock the due fraction is computed against (RFC3339)")
	flag.Uint64Var(&o.seed, "seed", 1, "random seed")
	flag.StringVar(&out, "o", "-", "output file, - for stdout")
	flag.StringVar(&o.prefix, "prefix", "b", "bucket name prefix: buckets are <prefix><n>-<profile>")
	flag.StringVar(&o.keyPrefix, "key-prefix", "k/", "key name prefix: keys are <key-prefix><n>.dat")
	flag.DurationVar(&o.recent, "recent", 0, "write keys not due within this long before -now (at least 1h before it); 0: 1 to 5 days before")
	flag.Parse()
	var err error
	if o.now, err = time.Parse(time.RFC3339, now); err != nil {
		fail(fmt.Errorf("-now %q: %v: use RFC3339, e.g. 2026-11-30T00:00:00Z", now, err))
	}
	for _, m := range strings.Split(mix, ",") {
		if _, ok := profiles[m]; !ok {
			fail(fmt.Errorf("-mix %q: unknown profile %q: use off, enabled or suspended", mix, m))
		}
		o.mix = append(o.mix, m)
	}
	switch {
	case o.versions < 1:
		fail(fmt.Errorf("-versions %d: must be at least 1", o.versions))
	case o.due < 0 || o.due > 1:
		fail(fmt.Errorf("-due %v: must be between 0 and 1", o.due))
	case o.perKey < 1:
		fail(fmt.Errorf("-per-key %d: must be at least 1", o.perKey))
	case o.recent != 0 && o.recent <= time.Hour:
		fail(fmt.Errorf("-recent %v: must be more than 1h, e.g. 20h", o.recent))
	}
	w := io.Writer(os.Stdout)
	var f *os.File
	if out != "-" {
		if f, err = os.Create(out); err != nil {
			fail(err)
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := write(bw, o); err != nil {
		fail(err)
	}
	if err := bw.Flush(); err != nil {
		fail(err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genfixture:", err)
	os.Exit(1)
}

// write streams the fixture: each key is generated, written and forgotten.
func write(w *bufio.Writer, o options) error {
	rng := rand.New(rand.NewPCG(o.seed, 0x696c6d63746c))
	w.WriteString(`{"buckets":[`)
	share := (o.versions + len(o.mix) - 1) / len(o.mix)
	for bi, name := range o.mix {
		p := profiles[name]
		if bi > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `{"name":"%s%d-%s","versioning":%q,"lifecycle_xml":%q,"objects":[`, o.prefix, bi, name, p.versioning, p.xml)
		perKey := o.perKey
		if p.versioning == "Off" {
			perKey = 1
		}
		keys := max(1, share/perKey)
		for k := 0; k < keys; k++ {
			if k > 0 {
				w.WriteByte(',')
			}
			due := rng.Float64() < o.due
			// Latest version time: past every rule when due, else within
			// the last 5 days; older versions an hour apart before it.
			latest := o.now.Add(-time.Duration(rng.Int64N(int64(4*day))) - day)
			if o.recent != 0 {
				latest = o.now.Add(-time.Hour - time.Duration(rng.Int64N(int64(o.recent-time.Hour))))
			}
			if due {
				latest = o.now.Add(-p.dueAge - time.Duration(rng.Int64N(int64(30*day))))
			}
			latest = latest.Truncate(time.Second)
			fmt.Fprintf(w, `{"key":"%s%08d.dat","versions":[`, o.keyPrefix, k)
			for v := 0; v < perKey; v++ {
				if v > 0 {
					w.WriteByte(',')
				}
				mt := latest.Add(-time.Duration(perKey-1-v) * time.Hour)
				w.WriteString(`{`)
				if p.versioning == "Suspended" && v == perKey-1 {
					w.WriteString(`"version_id":null,`)
				}
				w.WriteString(`"mtime":"`)
				w.WriteString(mt.UTC().Format(time.RFC3339))
				w.WriteString(`","size":`)
				w.WriteString(strconv.Itoa(1024 + rng.IntN(1<<20)))
				w.WriteString(`}`)
			}
			w.WriteString(`]}`)
		}
		w.WriteString(`]}`)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	_, err := w.WriteString("]}\n")
	return err
}
