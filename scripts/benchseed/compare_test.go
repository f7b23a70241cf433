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
	k := "bench-newer/n/000001"
	cur := k + " etag=" + etag("bench-newer/n/000001/churn") + " latest=true"
	v4 := k + " etag=" + etag("bench-newer/n/000001/v4") + " latest=false"
	v3 := k + " etag=" + etag("bench-newer/n/000001/v3") + " latest=false"
	v2 := k + " etag=" + etag("bench-newer/n/000001/v2") + " latest=false"
	other := "bench-nc/k/000002 etag=" + etag("x") + " latest=true"
	for _, tc := range []struct {
		name    string
		a, b    []string
		known   []string
		unknown []string
	}{
		{name: "identical", a: []string{cur, v4, v3, other}, b: []string{cur, v4, v3, other}},
		{name: "the worker removed the second-newest noncurrent version", a: []string{cur, v4, other}, b: []string{cur, v4, v3, other},
			known: []string{k}},
		{name: "another version missing is not the known difference", a: []string{cur, v3}, b: []string{cur, v4, v3},
			unknown: []string{"> " + v4}},
		{name: "ilmctl keeping a third noncurrent version is not it", a: []string{cur, v4, v3}, b: []string{cur, v4, v3, v2},
			unknown: []string{"> " + v2}},
		{name: "ilmctl removing more is not it", a: []string{cur, v4, v3}, b: []string{cur, v4},
			unknown: []string{"< " + v3}},
		{name: "other buckets are never excused", a: []string{}, b: []string{other}, unknown: []string{"> " + other}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compareListings(tc.a, tc.b, specs)
			if fmt.Sprint(c.known) != fmt.Sprint(tc.known) || !reflect.DeepEqual(c.unknown, tc.unknown) {
				t.Errorf("got known %v unknown %v, want %v %v", c.known, c.unknown, tc.known, tc.unknown)
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
