package dailyrun

import (
	"hash/maphash"
	"sync"
)

// keySet is a set of strings that keeps 128 bits of hash per member, not
// the string: the pass remembers every target it dispatched and every key
// its cold walk left pending, and at millions of versions the strings
// themselves would be most of its memory. Two seeds make two independent
// 64-bit maphash values; two members share both with a probability of
// about n²/2¹²⁹, nothing a pass can meet. It is not safe for concurrent
// use.
type keySet struct {
	m map[[2]uint64]struct{}
}

// keySeeds are the process's two maphash seeds; a keySet is never
// persisted or shared between processes.
var keySeeds = sync.OnceValue(func() [2]maphash.Seed {
	return [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
})

func newKeySet() *keySet { return &keySet{m: map[[2]uint64]struct{}{}} }

func keyHash(s string) [2]uint64 {
	seeds := keySeeds()
	return [2]uint64{maphash.String(seeds[0], s), maphash.String(seeds[1], s)}
}

func (k *keySet) has(s string) bool {
	_, ok := k.m[keyHash(s)]
	return ok
}

// add adds s and reports whether it was new.
func (k *keySet) add(s string) bool {
	h := keyHash(s)
	if _, ok := k.m[h]; ok {
		return false
	}
	k.m[h] = struct{}{}
	return true
}

func (k *keySet) len() int { return len(k.m) }

// keyDues maps strings, kept as keySet keeps them (128 bits of hash), to
// the earliest of the Unix-ns times noted for each. It is not safe for
// concurrent use.
type keyDues struct {
	m map[[2]uint64]int64
}

func newKeyDues() *keyDues { return &keyDues{m: map[[2]uint64]int64{}} }

// note records dueNs for s, keeping the earliest.
func (k *keyDues) note(s string, dueNs int64) {
	h := keyHash(s)
	if d, ok := k.m[h]; !ok || dueNs < d {
		k.m[h] = dueNs
	}
}

// get returns s's earliest time; ok is false when none was noted.
func (k *keyDues) get(s string) (dueNs int64, ok bool) {
	dueNs, ok = k.m[keyHash(s)]
	return dueNs, ok
}

func (k *keyDues) len() int { return len(k.m) }
