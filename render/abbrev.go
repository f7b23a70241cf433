package render

import (
	"sort"
	"strings"
)

// ShortIDLen is how many leading characters of a digest a table shows, as
// git shows a commit: enough to be unique in all but huge listings, and
// extended when two digests in one listing share them.
const ShortIDLen = 12

// Abbrev maps each distinct id to its shortest prefix of at least minLen
// characters that no other id in ids begins with, the way git shortens
// hashes. An id that is a prefix of another cannot be told apart by a
// prefix and keeps its full length; a resolver must prefer an exact match.
func Abbrev(ids []string, minLen int) map[string]string {
	uniq := make([]string, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	sort.Strings(uniq)
	out := make(map[string]string, len(uniq))
	for i, id := range uniq {
		// In sorted order the ids sharing the longest prefix with id are
		// its neighbours.
		n := minLen
		if i > 0 {
			n = max(n, commonPrefix(id, uniq[i-1])+1)
		}
		if i+1 < len(uniq) {
			n = max(n, commonPrefix(id, uniq[i+1])+1)
		}
		out[id] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// longID is the length past which ShortIDs shortens an ID: a digest or a
// UUID, not a name a person gave ("mpu-logs-0001") or "null".
const longID = 16

// ShortIDs returns how a table shows each of ids: an ID longer than 16
// characters as its Abbrev prefix of at least ShortIDLen, unique among
// ids; a shorter one whole.
func ShortIDs(ids []string) func(string) string {
	abbrev := Abbrev(ids, ShortIDLen)
	return func(id string) string {
		if len(id) <= longID {
			return id
		}
		return abbrev[id]
	}
}

// ShortPaths returns how a table shows each of paths: every element of 32
// or more lowercase hex digits (a digest, a UUID without hyphens, a run
// token), less a ".json" suffix, shortened to its Abbrev prefix of at
// least ShortIDLen, unique among the elements of paths, and marked "…",
// as git shortens hashes: "ilm/tier-delete-journal/7dd7e41015d3….json".
// -o wide and the detail lines keep the full path.
func ShortPaths(paths []string) func(string) string {
	var ids []string
	for _, p := range paths {
		hexElements(p, func(b string) { ids = append(ids, b) })
	}
	abbrev := Abbrev(ids, ShortIDLen)
	return func(p string) string {
		parts := strings.Split(p, "/")
		for i, c := range parts {
			body, ext := c, ""
			if b, ok := strings.CutSuffix(c, ".json"); ok {
				body, ext = b, ".json"
			}
			if short, ok := abbrev[body]; ok && short != body {
				parts[i] = short + "…" + ext
			}
		}
		return strings.Join(parts, "/")
	}
}

func hexElements(p string, fn func(body string)) {
	for _, c := range strings.Split(p, "/") {
		body := strings.TrimSuffix(c, ".json")
		if len(body) >= 32 && strings.Trim(body, "0123456789abcdef") == "" {
			fn(body)
		}
	}
}

// ShortNames returns how a table shows each of names (pools, spelled as
// given: a directory, s3://host:port/bucket): its shortest trailing run of
// "/"-separated elements that no other name in names ends with, as
// "target-a" for /srv/meta/target-a beside /srv/meta/source. A name
// another ends with entirely keeps its full spelling.
func ShortNames(names []string) func(string) string {
	uniq := map[string]bool{}
	for _, n := range names {
		uniq[n] = true
	}
	short := make(map[string]string, len(uniq))
	for n := range uniq {
		short[n] = n
		parts := strings.Split(strings.TrimRight(n, "/"), "/")
	suffixes:
		for i := len(parts) - 1; i > 0; i-- {
			s := strings.Join(parts[i:], "/")
			if s == "" {
				continue
			}
			for o := range uniq {
				if o != n && (o == s || strings.HasSuffix(strings.TrimRight(o, "/"), "/"+s)) {
					continue suffixes
				}
			}
			short[n] = s
			break
		}
	}
	return func(n string) string {
		if s, ok := short[n]; ok {
			return s
		}
		return n
	}
}
