package main

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
)

// knownBucket is where SeaweedFS's worker (the pinned version) is known to
// differ from AWS: under NoncurrentVersionExpiration with
// NewerNoncurrentVersions 2, after an overwrite demotes the current
// version, it also removes the second-newest noncurrent version, where
// AWS (and ilmctl) keep the two newest (AWS docs, "Lifecycle configuration
// elements": NewerNoncurrentVersions).
const knownBucket = "bench-newer"

// comparison is two listings' differences: keys that differ only by the
// known difference, and every other differing line ("< " only in the
// first, "> " only in the second).
type comparison struct {
	known   []string // bucket/key
	unknown []string
}

// compareListings compares what SeaweedFS's worker left (a) with what
// ilmctl left (b), both `benchseed list` lines. A key of knownBucket
// differs by the known difference when the only difference is one
// noncurrent version b keeps and a does not, b keeps two noncurrent
// versions, and the one a lacks is the second-newest one the dataset wrote
// (body v<n-2> of the key's n versions, the one just below the version the
// churn's overwrite demoted).
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
	nv := 0
	for _, s := range specs {
		if s.name == knownBucket {
			nv = s.versions(0)
		}
	}
	var c comparison
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
		if bucket, key, _ := strings.Cut(k, "/"); bucket == knownBucket && nv >= 2 && len(onlyA) == 0 && len(onlyB) == 1 {
			sum := md5.Sum([]byte(fmt.Sprintf("%s/%s/v%d", bucket, key, nv-2)))
			noncurrent := 0
			for rest := range gb[k] {
				if strings.HasSuffix(rest, " latest=false") && !strings.HasPrefix(rest, "DM ") {
					noncurrent++
				}
			}
			if onlyB[0] == "etag="+hex.EncodeToString(sum[:])+" latest=false" && noncurrent == 2 {
				c.known = append(c.known, k)
				continue
			}
		}
		sort.Strings(onlyA)
		sort.Strings(onlyB)
		for _, r := range onlyA {
			c.unknown = append(c.unknown, "< "+k+" "+r)
		}
		for _, r := range onlyB {
			c.unknown = append(c.unknown, "> "+k+" "+r)
		}
	}
	return c
}

// compareFiles compares two listing files (SeaweedFS's, then ilmctl's),
// prints the known difference's count on stdout, and fails on any other
// difference, printing the first ones to stderr.
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
	fmt.Printf("known=%d unknown=%d\n", len(c.known), len(c.unknown))
	if len(c.unknown) > 0 {
		fmt.Fprintf(os.Stderr, "benchseed: %d lines differ beyond the known difference (< only in %s, > only in %s):\n", len(c.unknown), pathA, pathB)
		for _, l := range c.unknown[:min(len(c.unknown), 20)] {
			fmt.Fprintln(os.Stderr, l)
		}
		return fmt.Errorf("%s and %s differ in %d lines beyond the known difference", pathA, pathB, len(c.unknown))
	}
	return nil
}
