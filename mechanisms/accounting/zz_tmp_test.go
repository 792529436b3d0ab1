package accounting

import (
	"fmt"
	"testing"
	"time"
)

func TestZZTmp(t *testing.T) {
	e := SelfComposed{Event: PoissonSampledGaussian{Q: 256.0 / 45000, NoiseMultiplier: 1}, Count: 1758}
	t0 := time.Now()
	eps, err := (Config{Kind: "pld", Interval: 1e-4}).Epsilon(e, 1e-5)
	fmt.Println(eps, err, time.Since(t0))
}
