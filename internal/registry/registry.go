// Package registry is the name → entry table behind dplab's plug-in
// registries (datasets, mechanisms).
//
// # Invariants
//
//   - Names are lowercase-hyphen ("adassp", "synthetic-linear"); a malformed
//     or duplicate name panics, because registration happens in init and a
//     clash is a programming error.
//   - Lookup of an unknown name is an error listing every known name, with
//     the closest one suggested.
//   - Entries are only added in init; lookups afterwards need no locking.
package registry

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dplab/dplab/internal/suggest"
)

var nameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Registry maps names to entries of type E.
type Registry[E any] struct {
	kind    string // "dataset", "mechanism": used in messages
	entries map[string]E
}

// New returns an empty registry of things of the given kind.
func New[E any](kind string) *Registry[E] {
	return &Registry[E]{kind: kind, entries: map[string]E{}}
}

// Add registers e under name; a malformed or duplicate name panics.
func (r *Registry[E]) Add(name string, e E) {
	if !nameRE.MatchString(name) {
		panic(fmt.Sprintf("%ss: malformed registry name %q", r.kind, name))
	}
	if _, dup := r.entries[name]; dup {
		panic(fmt.Sprintf("%ss: duplicate registry name %q", r.kind, name))
	}
	r.entries[name] = e
}

// Lookup returns the entry called name, or an error listing the known names.
func (r *Registry[E]) Lookup(name string) (E, error) {
	e, ok := r.entries[name]
	if !ok {
		names := r.Names()
		return e, fmt.Errorf("unknown %s %q%s; known %ss: %s", r.kind, name, suggest.DidYouMean(name, names), r.kind, strings.Join(names, ", "))
	}
	return e, nil
}

// Names returns the registered names, sorted.
func (r *Registry[E]) Names() []string {
	out := make([]string, 0, len(r.entries))
	for n := range r.entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// All returns the entries sorted by name.
func (r *Registry[E]) All() []E {
	out := make([]E, 0, len(r.entries))
	for _, n := range r.Names() {
		out = append(out, r.entries[n])
	}
	return out
}
