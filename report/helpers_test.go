package report

import "testing"

// render draws figs in place (files in dir unless dir is "": SVG only),
// in every format when there is a folder.
func render(t *testing.T, dir string, figs []Figure) {
	t.Helper()
	ptrs := make([]*Figure, len(figs))
	for i := range figs {
		ptrs[i] = &figs[i]
	}
	out := Output{Dir: dir}
	if dir != "" {
		out.Formats = Formats
	}
	if err := Render(ptrs, out); err != nil {
		t.Fatal(err)
	}
}
