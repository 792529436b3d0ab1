package datasets

import (
	"fmt"
)

// UCIParams are the params of the uci_datasets family.
type UCIParams struct {
	// Split selects the test mask column 0..9 (treforevans/uci_datasets'
	// test_mask[:, split]); GaussMix draws it at random per run, dplab makes
	// it a parameter.
	Split int `toml:"split"`
}

// Validate implements Params.
func (p UCIParams) Validate() error {
	if p.Split < 0 || p.Split > 9 {
		return fmt.Errorf("split %d: want 0..9", p.Split)
	}
	return nil
}

// uciSet is one uci_datasets-format data set of the GaussMix folder.
type uciSet struct {
	name, title    string
	n, d           int
	trainSHA, mSHA string
}

// uciSets are the sets present in the GaussMix snapshot (MANIFEST §3;
// reference-code.md §7.1 family A).
var uciSets = []uciSet{
	{"elevators", "Elevators (Delve/Torgo)", 16599, 18, "f9c478c8660cc92453acbf652310740975afed544ca8c0e81145cec18dbc3ea9", "f69ae7da82f6196b7e4f840d93162562235b84092089a40a98eff45a23c70b3d"},
	{"sml", "SML2010 indoor temperature (UCI)", 4137, 26, "99779d3b2243216cf4f9c57d879b778fd2fad3c79b942f6841a266bc5d2692e3", "26b53c0efb8a0e420ed9a5cbb8006ead033b492bb780a1ff58332eb78d9bb852"},
	{"protein", "Protein tertiary structure (UCI CASP)", 45730, 9, "6ccb1a6bf7e7ba40febe2b8226779cb62e4ca2fa4d193bdec8538c6b5f991ec5", "7745295a642503ea0ef994841cbf352492e8fbf38b37c34473bb456f3ff13703"},
	{"kin40k", "kin40k robot arm (Delve kin family)", 40000, 8, "72ad383c3281a7c85ac49cde9b9682d3e0181e24b1b8a6fe33fd9b993b7db16e", "56908124080d079831505c36143ea4a6a0c635f480c0c1a07d7202063ca24acf"},
	{"pol", "Pole telecommunication (Torgo)", 15000, 26, "1f4370e9c9448dc537601710d8744d3ea8f5532b93512288c27abb50120f367c", "48310e321c1299e631433261a2e3e4c9646f2ebdac613b9db5711b4d2b1e125f"},
	{"pumadyn32nm", "Pumadyn 32nm robot arm (Delve)", 8192, 32, "bd823e5e87867b4152f62bf8a64b896a272645e319e8373354e15501a5654641", "ab5aaccfb1fa90012c3924803de6e8a084526dc14baab4ad4591ac9a781183b5"},
	{"pendulum", "Pendulum", 630, 9, "6cf3dbfadf9edfae75978c5234863dde90aba845b76515517e29ed3f13a26915", "fc938eecb38862d3ab5d1676cb998137e823114feb5ae59564d296953462d1a3"},
	{"solar", "Solar flare (UCI)", 1066, 10, "2257aa48f6fdb8266b8d7f1b70b7bf38860873f5acd38ac63be5f7fb0f01543d", "6bb38101bb192c3f55759ed1a006399c1a41b4428749d59c87441b70b3816d32"},
	{"yacht", "Yacht hydrodynamics (UCI)", 308, 6, "dc2871f60f28086c6b12738fc053647f13b29d770013baaf6d3f5806e219b3cb", "f48e2ccd419d64e8da3079b127b0f5c8f0c5de7be5897acf6cf9c3607a05dd00"},
	{"machine", "Computer hardware (UCI machine)", 209, 7, "9b8a1ff9269f024fa7d04b8d2ca04507152d49da3b8a0d33e718b2fdbaad2e3d", "1bd6e4a81c191cf11bb53c3cf718042619a57d94024c5c7cdad2e696aace90ac"},
	{"servo", "Servo (UCI)", 167, 4, "fbd529b3214f51f6b980cfdbfc09a3567b38639c53c7411e442469956224cfba", "c38e7fbe59cc18d825642955452d3e43399314e3f499e29f08b591c755078b2f"},
	{"autos", "Automobile (UCI autos)", 159, 25, "cc8b46f80771eec921622c6ef962c8b749b4f347bbe5a5a52d177b569776818f", "5e1ae2272b478eeaa97947fb3c883492d090b256804f53d19039136aed29ebb3"},
	{"concreteslump", "Concrete slump test (UCI)", 103, 7, "02d656757c818802065b8cd553fc80bd30212799d522de96c82d24b26fa70457", "8281fb7f02098b32e2cb212b867ff8ce67e702a57e499e445fbd404a7ad1be19"},
	{"fertility", "Fertility (UCI)", 100, 9, "ff63b39ac0a39038458d250320751d722418e00ac3a730f3fa86d338dabf5486", "63b7e90d3c645d8e1d6fb54b153292b3f3cc5c7dd78d2ba176da0b3f825983d3"},
	{"forest", "Forest fires (UCI)", 517, 12, "5e93f58feeeee7d1c8a093383de7fbd7763a2529e783d169d2dbd568a93ecb38", "0b9d2961c05393e6afa6561701448014a3aab09928eb25119ce3801854f41ef8"},
}

func init() {
	for _, s := range uciSets {
		s := s
		Register(Info{
			Name:  s.name,
			Title: s.title + ", uci_datasets format",
			Description: fmt.Sprintf("%s_train.txt (comma-separated, %d × %d features + target last, as converted by the GaussMix authors "+
				"from treforevans/uci_datasets) and %s_mask.txt (10 test masks). The split param picks the mask column: "+
				"test rows are its 1s, train rows its 0s (Train and Test). X standardised by the training rows' mean and "+
				"population sd (zero sd → 1), as GaussMix does (reference-code.md §7.1 family A); y / max|y_train| and "+
				"X / max train row norm are the runner's scaling (y = \"max-abs\", x = \"max-row-norm\").", s.name, s.n, s.d, s.name),
			Task:    Regression,
			Papers:  []string{"LSS+25 code only (no paper figure)"},
			License: "per source (UCI data CC BY 4.0; Delve/Torgo sets free for research); GaussMix repository has no license",
			Source:  "treforevans/uci_datasets (Wilson et al.), via the GaussMix repository",
			Rows:    s.n, Cols: s.d,
			DataDependent: []string{
				"X standardised with the mean and sd of the training rows"},
			Files: []File{
				gaussMixFile(s.name+"_train.txt", s.trainSHA),
				gaussMixFile(s.name+"_mask.txt", s.mSHA),
			},
		}, func(dir string, p UCIParams) (*Loaded, error) { return loadUCI(s, dir, p) }, UCIParams{Split: 1})
	}
}

func loadUCI(s uciSet, dir string, p UCIParams) (*Loaded, error) {
	dataRel, maskRel := "gaussmix/"+s.name+"_train.txt", "gaussmix/"+s.name+"_mask.txt"
	if err := requireFiles(s.name, dir, dataRel, maskRel); err != nil {
		return nil, err
	}
	t, err := readTable(s.name, dir, dataRel, CSVOptions{})
	if err != nil {
		return nil, err
	}
	m, err := readTable(s.name, dir, maskRel, CSVOptions{})
	if err != nil {
		return nil, err
	}
	maskPath := m.Path
	if m.Rows != t.Rows || m.Cols != 10 {
		return nil, m.errorf(s.name, "%d × %d mask for %d data rows, want %d × 10", m.Rows, m.Cols, t.Rows, t.Rows)
	}
	all, err := targetLast(s.name, t, nil)
	if err != nil {
		return nil, err
	}
	var trainIdx, testIdx []int
	for i := 0; i < m.Rows; i++ {
		switch m.Data[i*10+p.Split] {
		case 0:
			trainIdx = append(trainIdx, i)
		case 1:
			testIdx = append(testIdx, i)
		default:
			return nil, fmt.Errorf("dataset %s: %w", s.name, &FileError{Path: maskPath, Line: i + 1,
				Column: fmt.Sprintf("#%d", p.Split+1), Err: fmt.Errorf("mask value %v is not 0 or 1", m.Data[i*10+p.Split])})
		}
	}
	if len(trainIdx) == 0 || len(testIdx) == 0 {
		return nil, m.errorf(s.name, "mask column %d leaves an empty part", p.Split+1)
	}
	train, test := all.Subset(trainIdx), all.Subset(testIdx)
	mean, sd := columnMoments(train, 0)
	standardize(train, mean, sd)
	standardize(test, mean, sd)
	return &Loaded{Train: train, Test: test}, nil
}
