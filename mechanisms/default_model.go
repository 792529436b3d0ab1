package mechanisms

// DataIndependentModel is the release of a procedure that must output a
// model without looking at the data (private tuning that drew K = 0 runs,
// [PS22]): the zero linear model on d features. It predicts 0 for every x
// (regression value 0; label 0 for a binary task).
func DataIndependentModel(d int) Model { return &Linear{Theta: make([]float64, d)} }
