package accounting_test

import (
	"fmt"

	"github.com/dplab/dplab/mechanisms/accounting"
)

// DP-SGD: 1000 steps at sampling rate 0.01 with noise multiplier 1, on
// dp_accounting's order grid (this reproduces dp_accounting's number), with
// the continuous refinement, and with the PLD accountant.
func Example() {
	step := accounting.PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1}
	run := accounting.SelfComposed{Event: step, Count: 1000}
	for _, cfg := range []accounting.Config{{Orders: "grid"}, {}, {Kind: "pld"}} {
		g, err := cfg.Epsilon(run, 1e-5)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %-7s ε = %.4f α* = %.2f\n", g.Accountant, cfg.Orders, g.Epsilon, g.Alpha)
	}
	// Output:
	// rdp grid    ε = 2.1014 α* = 7.80
	// rdp         ε = 2.1013 α* = 7.78
	// pld         ε = 1.8282 α* = 0.00
}

// Calibrate the noise multiplier of the same run to ε = 1 at δ = 1e-5.
func ExampleCalibrator_Calibrate() {
	cal := accounting.NewCalibrator(accounting.Config{})
	sigma, err := cal.Calibrate(func(s float64) accounting.Event {
		return accounting.SelfComposed{Event: accounting.PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: s}, Count: 1000}
	}, accounting.Target{Epsilon: 1, Delta: 1e-5}, accounting.Bracket{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("σ = %.4f\n", sigma)
	// Output:
	// σ = 1.5131
}

// Honest hyperparameter tuning: Poisson(10) candidate runs, best released.
func ExampleRepeatAndSelect() {
	run := accounting.SelfComposed{Event: accounting.PoissonSampledGaussian{Q: 0.01, NoiseMultiplier: 1}, Count: 1000}
	tuned := accounting.RepeatAndSelect{Event: run, Distribution: accounting.Poisson, Mean: 10}
	one, _ := accounting.Config{Orders: "grid"}.Epsilon(run, 1e-5)
	all, _ := accounting.Config{Orders: "grid"}.Epsilon(tuned, 1e-5)
	fmt.Printf("one run ε = %.3f, tuned ε = %.3f\n", one.Epsilon, all.Epsilon)
	// Output:
	// one run ε = 2.101, tuned ε = 4.329
}
