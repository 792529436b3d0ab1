// Package oncemap computes a value once per key and shares it: the loaded
// datasets of a process, the derived statistics of a dataset.
//
// # Invariants
//
//   - For each key, compute runs at most once, even under concurrent calls;
//     every caller gets its value and error.
//   - The zero Map is ready to use; a Map must not be copied after first use.
package oncemap

import "sync"

// Map holds one lazily computed value per key. It is safe for concurrent use.
type Map struct {
	mu      sync.Mutex
	entries map[string]*entry
}

type entry struct {
	once sync.Once
	v    any
	err  error
}

// Do returns the value of key, running compute the first time.
func (m *Map) Do(key string, compute func() (any, error)) (any, error) {
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*entry{}
	}
	e, ok := m.entries[key]
	if !ok {
		e = &entry{}
		m.entries[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = compute() })
	return e.v, e.err
}
