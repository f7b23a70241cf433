package main

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"sort"
	"strings"
)

// A difference is named when it is one of the ways SeaweedFS's worker
// (the pinned version) is known to part from AWS on this dataset, and
// what ilmctl left is what AWS leaves; any other difference is unknown
// and fails the comparison. The names, as compare prints them:
const (
	// newerKept: in bench-newer (NoncurrentDays 1, NewerNoncurrentVersions
	// 2), after the churn's overwrite or delete demoted the current
	// version, the worker kept a third noncurrent version, due for days;
	// AWS and ilmctl keep only the two newest (AWS docs, "Lifecycle
	// configuration elements": NewerNoncurrentVersions).
	newerKept = "newer_kept"
	// newerRemoved: in bench-newer, the worker removed the second-newest
	// noncurrent version, one of the two AWS and ilmctl keep, whether or
	// not it kept an older one AWS removes (its meta-log replay does
	// both, on the daily pass after the one that kept a third).
	newerRemoved = "newer_removed"
	// tagKept: in bench-tags (Expiration Days 1 on tag expire=yes), the
	// worker kept an aged object the churn retagged expire=yes; AWS and
	// ilmctl expire it: a rule sees the object's tags as they are now,
	// and a tagging change does not change Last-Modified.
	tagKept = "tag_kept"
)

// comparison is two listings' differences: the keys of each named
// difference, and every other differing line ("< " only in the first, "> "
// only in the second).
type comparison struct {
	named   map[string][]string // name -> bucket/key
	unknown []string
}

// compareListings compares what SeaweedFS's worker left (a) with what
// ilmctl left (b), both `benchseed list` lines, after the churn.
func compareListings(a, b []string, specs []bucketSpec) comparison {
	group := func(lines []string) map[string]map[string]bool {
		m := map[string]map[string]bool{}
		for _, l := range lines {
			k, rest, _ := strings.Cut(l, " ")
			if m[k] == nil {
				m[k] = map[string]bool{}
			}
			m[k][rest] = true
		}
		return m
	}
	ga, gb := group(a), group(b)
	keys := map[string]bool{}
	for k := range ga {
		keys[k] = true
	}
	for k := range gb {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	spec := map[string]*bucketSpec{}
	for i := range specs {
		spec[specs[i].name] = &specs[i]
	}
	c := comparison{named: map[string][]string{}}
	for _, k := range sorted {
		var onlyA, onlyB []string
		for rest := range ga[k] {
			if !gb[k][rest] {
				onlyA = append(onlyA, rest)
			}
		}
		for rest := range gb[k] {
			if !ga[k][rest] {
				onlyB = append(onlyB, rest)
			}
		}
		if len(onlyA) == 0 && len(onlyB) == 0 {
			continue
		}
		sort.Strings(onlyA)
		sort.Strings(onlyB)
		if name := nameDifference(k, onlyA, onlyB, gb[k], spec); name != "" {
			c.named[name] = append(c.named[name], k)
			continue
		}
		for _, r := range onlyA {
			c.unknown = append(c.unknown, "< "+k+" "+r)
		}
		for _, r := range onlyB {
			c.unknown = append(c.unknown, "> "+k+" "+r)
		}
	}
	return c
}

// nameDifference names the difference of key k (bucket/key), where onlyA
// and onlyB are the lines only SeaweedFS's and only ilmctl's listing hold
// and left is all of ilmctl's for k; "" when it is none of the known ones.
func nameDifference(k string, onlyA, onlyB []string, left map[string]bool, spec map[string]*bucketSpec) string {
	bucket, key, _ := strings.Cut(k, "/")
	b := spec[bucket]
	if b == nil {
		return ""
	}
	var i int
	if _, err := fmt.Sscanf(key[strings.LastIndexByte(key, '/')+1:], "%d", &i); err != nil {
		return ""
	}
	body := func(v string) string {
		sum := md5.Sum([]byte(fmt.Sprintf("%s/%s/%s", bucket, key, v)))
		return "etag=" + hex.EncodeToString(sum[:]) + " latest=false"
	}
	switch bucket {
	case "bench-newer":
		nv := b.versions(i)
		// The two newest noncurrent versions after the churn's overwrite or
		// delete: the demoted current one and the one before it.
		newest := map[string]bool{body(fmt.Sprintf("v%d", nv-1)): true, body(fmt.Sprintf("v%d", nv-2)): true}
		kept := map[string]bool{}
		for l := range left {
			if strings.HasSuffix(l, " latest=false") && !strings.HasPrefix(l, "DM ") {
				kept[l] = true
			}
		}
		if op := churnOf(i); (op != churnOverwrite && op != churnDelete) || !b.aged(i) || !maps.Equal(kept, newest) {
			return ""
		}
		if len(onlyB) == 0 && len(onlyA) > 0 && allNoncurrentVersions(onlyA) {
			return newerKept
		}
		if len(onlyB) == 1 && onlyB[0] == body(fmt.Sprintf("v%d", nv-2)) && allNoncurrentVersions(onlyA) {
			return newerRemoved
		}
	case "bench-tags":
		if churnOf(i) == churnRetag && b.aged(i) && len(onlyB) == 0 && len(onlyA) == 1 && len(left) == 0 &&
			strings.HasSuffix(onlyA[0], " latest=true") {
			return tagKept
		}
	}
	return ""
}

func allNoncurrentVersions(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, "etag=") || !strings.HasSuffix(l, " latest=false") {
			return false
		}
	}
	return true
}

// compareFiles compares two listing files (SeaweedFS's, then ilmctl's),
// prints how many keys differ by each named difference on stdout, and
// fails on any other difference, printing the first ones to stderr.
func compareFiles(pathA, pathB string, scale float64) error {
	read := func(p string) ([]string, error) {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		var lines []string
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		return lines, sc.Err()
	}
	a, err := read(pathA)
	if err != nil {
		return err
	}
	b, err := read(pathB)
	if err != nil {
		return err
	}
	c := compareListings(a, b, dataset(scale))
	fmt.Printf("%s=%d %s=%d %s=%d unknown=%d\n", newerKept, len(c.named[newerKept]), newerRemoved, len(c.named[newerRemoved]),
		tagKept, len(c.named[tagKept]), len(c.unknown))
	if len(c.unknown) > 0 {
		fmt.Fprintf(os.Stderr, "benchseed: %d lines differ beyond the named differences (< only in %s, > only in %s):\n", len(c.unknown), pathA, pathB)
		for _, l := range c.unknown[:min(len(c.unknown), 20)] {
			fmt.Fprintln(os.Stderr, l)
		}
		return fmt.Errorf("%s and %s differ in %d lines beyond the named differences", pathA, pathB, len(c.unknown))
	}
	return nil
}
