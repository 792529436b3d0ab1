package report

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// maxStem bounds the part of a file name that stands for a label, so that
// a table split per dataset or panel has names at most its block's name +
// 1 + maxStem bytes long (checked at load: checkFileNames).
const maxStem = 64

// labelStems maps each label to the part of a file name that stands for it
// when a table is split per dataset or per panel: the label's slug, unique
// among labels. A label whose slug is empty (an all-Greek label), shared
// with another label ("Data A" and "data-a") or longer than maxStem gets a
// short hash of itself appended to its slug, cut to fit ("data-a-1f2e3d4c"),
// so names never collide, never exceed maxStem bytes, and depend only on
// the set of labels, not on their order.
func labelStems(labels []string) map[string]string {
	uniq := map[string]bool{}
	for _, l := range labels {
		uniq[l] = true
	}
	sorted := make([]string, 0, len(uniq))
	for l := range uniq {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	slugs := map[string]int{}
	for _, l := range sorted {
		slugs[slug(l)]++
	}
	hashed := func(l string, n int) string {
		sum := sha256.Sum256([]byte(l))
		h := hex.EncodeToString(sum[:])[:n]
		if s := strings.TrimRight(slug(l)[:min(len(slug(l)), max(maxStem-1-n, 0))], "-"); s != "" {
			return s + "-" + h
		}
		return h
	}
	stems := make(map[string]string, len(sorted))
	for _, l := range sorted {
		s := slug(l)
		if s == "" || slugs[s] > 1 || len(s) > maxStem {
			s = hashed(l, 8)
		}
		stems[l] = s
	}
	// A hashed stem could still equal another label's plain slug (a label
	// spelled "data-a-1f2e3d4c"): give the hashed one the full hash, which
	// differs between distinct labels.
	owner := map[string]string{}
	for _, l := range sorted {
		if o, ok := owner[stems[l]]; ok {
			if stems[l] != slug(l) {
				stems[l] = hashed(l, 64)
			} else {
				stems[o] = hashed(o, 64)
				owner[stems[o]] = o
			}
		}
		owner[stems[l]] = l
	}
	return stems
}

// datasetStem returns the file-name part of a dataset label (labelStems
// over every dataset of the spec).
func (v *view) datasetStem(label string) string {
	if v.dataStems == nil {
		var labels []string
		for _, d := range v.spec.Datasets {
			labels = append(labels, d.Label)
		}
		v.dataStems = labelStems(labels)
	}
	return v.dataStems[label]
}

// panelStem returns the file-name part of a curve panel (labelStems over
// every panel of the spec's curves).
func (v *view) panelStem(panel string) string {
	if v.panelStems == nil {
		var panels []string
		for _, c := range v.spec.Curves {
			panels = append(panels, c.Panel)
		}
		v.panelStems = labelStems(panels)
	}
	return v.panelStems[panel]
}
