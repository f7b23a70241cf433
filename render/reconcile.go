package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ilmctl/ilmctl/core/reconcile"
)

// Reconcile writes a reconcile report: -o json is the report itself (the
// plan 'reconcile post' takes); the table leads with the outcome and the
// reason, then the source, the target and each set, short of width
// columns: long values and keys wrap (Fields, WrapLast), never shortened,
// since a digest or remote key here is what an operator checks.
func Reconcile(w io.Writer, f Format, rep *reconcile.Report, width int) error {
	if f == FormatJSON {
		return JSON(w, rep)
	}
	s := rep.Selector
	rows := [][]string{
		{"OUTCOME", rep.Outcome.String()},
		{"REASON", rep.Reason},
		{"READY", strconv.FormatBool(rep.Ready)},
		{"BYTES_CHANGED", strconv.FormatBool(rep.BytesChanged)},
		{"OBJECT", fmt.Sprintf("%s/%s", s.Bucket, s.Object)},
		{"VERSION_ID", s.VersionID},
	}
	if src := rep.Source; src != nil {
		rows = append(rows,
			[]string{"TIER", src.Tier},
			[]string{"REMOTE", fmt.Sprintf("%s %s/%s", src.Destination.Endpoint, src.Destination.Bucket, src.RemoteKey)},
			[]string{"DESTINATION_ID", src.DestinationID},
		)
	}
	if p := rep.Probe; p != nil {
		status := p.Versioning
		if status == "" {
			status = "never enabled"
		}
		rows = append(rows, []string{"TIER_VERSIONING", status}, []string{"TIER_VERSIONS", strconv.Itoa(len(p.Versions))})
	}
	if t := rep.Target; t != nil {
		rows = append(rows, []string{"TARGET_STATE", t.State.String()}, []string{"TARGET_REMOTE_VERSION", t.RemoteVersionID})
	}
	if rep.Digest != "" {
		rows = append(rows, []string{"DIGEST", rep.Digest})
	}
	if err := Fields(w, "Reconcile", [2]string{"FIELD", "VALUE"}, rows, width); err != nil {
		return err
	}
	var sets [][]string
	for _, c := range rep.Sets {
		keys := "" // an explicit set holds the target, shown above
		if c.State == reconcile.StateMissing {
			keys = presentKeys(c.Keys)
		}
		sets = append(sets, []string{c.Set, c.State, strconv.FormatUint(c.Generation, 10), keys})
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return WrapLast(w, "Sets", []string{"SET", "STATE", "GENERATION", "KEYS"}, sets, width)
}

// presentKeys lists the mutable keys a legacy set holds (its original
// representation), prefixes shortened to rustfs: and minio:, values
// quoted; "" (printed "-") when it holds none.
func presentKeys(keys []reconcile.RawKey) string {
	var out []string
	for _, k := range keys {
		if !k.Present {
			continue
		}
		name := k.Key
		for short, p := range map[string]string{"rustfs:": reconcile.PrefixRustFS, "minio:": reconcile.PrefixMinIO} {
			if rest, ok := strings.CutPrefix(name, p); ok {
				name = short + rest
			}
		}
		out = append(out, name+"="+strconv.Quote(k.Value))
	}
	return strings.Join(out, " ")
}
