// Package recent keeps the last few values built for keys (Cache), shared
// by the trials of a run.
package recent

import "sync"

// Cache keeps the last few values built for keys, so the trials of a
// run share what depends on its dataset alone (a skip start, the
// per-channel maps, the reference forecasters) without keeping many
// finished runs' datasets alive. Safe for concurrent use; a value is
// built once, under the lock.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	N       int // entries kept
	entries []recentEntry[K, V]
}

type recentEntry[K comparable, V any] struct {
	key K
	val V
}

// Get returns the value kept for k, else builds it, keeps it (dropping
// the oldest beyond n) and returns it; an error is returned and nothing
// kept.
func (c *Cache[K, V]) Get(k K, build func() (V, error)) (V, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == k {
			return e.val, nil
		}
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	c.entries = append(c.entries, recentEntry[K, V]{k, v})
	c.entries = c.entries[max(0, len(c.entries)-c.N):]
	return v, nil
}
