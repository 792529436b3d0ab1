// Package oncemap computes a value once per key and shares it: the loaded
// datasets of a process, the derived statistics of a dataset, a mechanism's
// calibrated noise. Concurrent callers of a key still being computed wait
// for it rather than compute it again.
//
// # Invariants
//
//   - For each key, compute runs at most once, even under concurrent calls;
//     every caller gets its value and error.
//   - The zero Map is ready to use; a Map must not be copied after first use.
package oncemap

import "sync"

// Map holds one lazily computed value per key. It is safe for concurrent use.
type Map[K comparable, V any] struct {
	mu      sync.Mutex
	entries map[K]*entry[V]
}

type entry[V any] struct {
	once sync.Once
	v    V
	err  error
}

// Do returns the value of key, running compute the first time.
func (m *Map[K, V]) Do(key K, compute func() (V, error)) (V, error) {
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[K]*entry[V]{}
	}
	e, ok := m.entries[key]
	if !ok {
		e = &entry[V]{}
		m.entries[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = compute() })
	return e.v, e.err
}

// Len returns the number of keys asked for so far.
func (m *Map[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// Delete forgets key: the next Do of it computes again. A Do of key in
// progress still returns its value to its callers.
func (m *Map[K, V]) Delete(key K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, key)
}

// DeleteFunc forgets every key for which del returns true.
func (m *Map[K, V]) DeleteFunc(del func(K) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.entries {
		if del(k) {
			delete(m.entries, k)
		}
	}
}
