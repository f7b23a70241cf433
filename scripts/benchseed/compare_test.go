package main

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"reflect"
	"testing"
)

func etag(body string) string {
	s := md5.Sum([]byte(body))
	return hex.EncodeToString(s[:])
}

func TestCompareListings(t *testing.T) {
	specs := dataset(1)
	line := func(bucketKey, body string, latest bool) string {
		return fmt.Sprintf("%s etag=%s latest=%t", bucketKey, etag(bucketKey+"/"+body), latest)
	}
	// n/000002 was overwritten by the churn and is aged: after it, churn
	// is current and v4, v3, v2 noncurrent; AWS keeps v4 and v3.
	k := "bench-newer/n/000002"
	cur, v4, v3, v2 := line(k, "churn", true), line(k, "v4", false), line(k, "v3", false), line(k, "v2", false)
	// n/000151 was deleted by the churn: a delete marker over v4.
	d := "bench-newer/n/000151"
	dm, d4, d3, d2 := d+" DM latest=true", line(d, "v4", false), line(d, "v3", false), line(d, "v2", false)
	// n/000003 is not aged, n/000202 was retagged: neither is excused.
	na := "bench-newer/n/000003"
	rt := "bench-newer/n/000202"
	// t/000551 is aged and was retagged expire=yes; t/000553 was not.
	tag := line("bench-tags/t/000551", "v0", true)
	untouched := line("bench-tags/t/000553", "v0", true)
	other := line("bench-nc/k/000002", "v3", true)
	for _, tc := range []struct {
		name    string
		a, b    []string
		named   map[string][]string
		unknown []string
	}{
		{name: "identical", a: []string{cur, v4, v3, other}, b: []string{cur, v4, v3, other}, named: map[string][]string{}},
		{name: "the worker kept a third noncurrent version after an overwrite and a delete",
			a: []string{cur, v4, v3, v2, dm, d4, d3, d2}, b: []string{cur, v4, v3, dm, d4, d3},
			named: map[string][]string{newerKept: {k, d}}},
		{name: "the worker removed the second-newest noncurrent version", a: []string{cur, v4, other}, b: []string{cur, v4, v3, other},
			named: map[string][]string{newerRemoved: {k}}},
		{name: "the worker removed the second-newest and kept an older one", a: []string{cur, v4, v2, other}, b: []string{cur, v4, v3, other},
			named: map[string][]string{newerRemoved: {k}}},
		{name: "the worker removing the second-newest and keeping a current line is not", a: []string{cur, v4, other, line(k, "x", true)}, b: []string{cur, v4, v3, other},
			named: map[string][]string{}, unknown: []string{"< " + line(k, "x", true), "> " + v3}},
		{name: "the worker kept an aged object retagged into the filter", a: []string{tag, untouched}, b: []string{untouched},
			named: map[string][]string{tagKept: {"bench-tags/t/000551"}}},
		{name: "a tagged object the churn did not retag is not excused", a: []string{tag, untouched}, b: []string{tag},
			named: map[string][]string{}, unknown: []string{"< " + untouched}},
		{name: "another version missing is not a named difference", a: []string{cur, v3}, b: []string{cur, v4, v3},
			named: map[string][]string{}, unknown: []string{"> " + v4}},
		{name: "ilmctl keeping a third noncurrent version is not", a: []string{cur, v4, v3}, b: []string{cur, v4, v3, v2},
			named: map[string][]string{}, unknown: []string{"> " + v2}},
		{name: "ilmctl removing one of the two newest is not", a: []string{cur, v4, v3}, b: []string{cur, v4},
			named: map[string][]string{}, unknown: []string{"< " + v3}},
		{name: "keys the churn did not demote are not", a: []string{line(na, "v1", false), line(rt, "v1", false)}, b: []string{},
			named: map[string][]string{}, unknown: []string{"< " + line(na, "v1", false), "< " + line(rt, "v1", false)}},
		{name: "other buckets never are", a: []string{}, b: []string{other},
			named: map[string][]string{}, unknown: []string{"> " + other}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compareListings(tc.a, tc.b, specs)
			if !reflect.DeepEqual(c.named, tc.named) || !reflect.DeepEqual(c.unknown, tc.unknown) {
				t.Errorf("got named %v unknown %v, want %v %v", c.named, c.unknown, tc.named, tc.unknown)
			}
		})
	}
}

func TestChurnOf(t *testing.T) {
	got := map[churnOp]int{}
	for i := 0; i < 60000; i++ {
		got[churnOf(i)]++
	}
	want := map[churnOp]int{churnNone: 59400, churnOverwrite: 200, churnDelete: 200, churnRetag: 200}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("churnOf over 60000 keys = %v, want 1 %% split evenly %v", got, want)
	}
	for _, tc := range []struct {
		i    int
		want churnOp
	}{{2, churnOverwrite}, {151, churnDelete}, {202, churnRetag}, {351, churnOverwrite}, {51, churnNone}, {102, churnNone}} {
		if got := churnOf(tc.i); got != tc.want {
			t.Errorf("churnOf(%d) = %v, want %v", tc.i, got, tc.want)
		}
	}
}
