package datasets

func init() {
	Register(Info{
		Name:  "tecator",
		Title: "Tecator meat NIR spectra (StatLib; OpenML 505)",
		Description: "tecator.csv (240 × 125 with a header); target fat, selected by name (the column order differs from " +
			"OpenML's export); features the other 124 columns in file order (100 absorbances, 22 principal components, " +
			"moisture, protein), as OpenML's fetch_openml(\"Tecator\") gives GaussMix." + lss25Split,
		Task:    Regression,
		Papers:  []string{"LSS+25 Fig. 2 (Tecator panel)"},
		License: "Tecator permission note: free use and redistribution with the note attached (tecator/PERMISSION.txt)",
		Source:  "Borggaard & Thodberg 1992, StatLib tecator / OpenML 505",
		Rows:    240, Cols: 124,
		Files: []File{
			{Path: "tecator/tecator.csv",
				URLs:   []string{"https://raw.githubusercontent.com/caseykneale/ChemometricsTools.jl/0403cd4014af9b9d1dcac20c42ca3543ca56a9d5/data/tecator.csv"},
				SHA256: "22a6d0f71931f6178b169905e99ae610e35387aa4d5630b43ea550277e1a8964"},
			{Path: "tecator/PERMISSION.txt", SHA256: "f65416013d5344453236666f0364b1714408d5bdccd46b9d5382c428ee824a8b", Optional: true},
		},
	}, loadTecator, NoParams{})
}

func loadTecator(dir string, _ NoParams) (*Loaded, error) {
	const rel = "tecator/tecator.csv"
	t, err := readTable("tecator", dir, rel, CSVOptions{Header: true})
	if err != nil {
		return nil, err
	}
	target, ok := t.Column("fat")
	if !ok || t.Cols != 125 {
		return nil, t.errorf("tecator", "header has %d columns (want 125) and the target column fat present = %v", t.Cols, ok)
	}
	d, err := selectColumns("tecator", t, allBut(t.Cols, target), target, nil)
	return &Loaded{All: d}, err
}
