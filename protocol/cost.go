package protocol

// ModelCost is what the model of one cfg costs on a track's train
// windows, by the cost model of the package that trains it
// (trial.Costs for the built-in transformer).
type ModelCost struct {
	// Bytes is the memory of the model, its optimizer and a batch's
	// activations (transformer.Config.MemoryBytes).
	Bytes float64
	// Step is the matrix-product FLOPs of one training step at the
	// protocol's batch (transformer.Config.StepFLOPs; on a token track
	// TokenStepFLOPs with the batch's share of the labelled positions).
	Step float64
	// Window is one window's forward pass, a third of a step's FLOPs per
	// window (transformer.Config.FLOPsPerStep(1)/3).
	Window float64
}

// Coster gives the cost of cfg c's model on the train windows z. The
// trainer's package builds it (trial.Costs) and hands it to Estimate and
// BudgetOf, so that the protocol, and the report that holds one, import
// no trainer.
type Coster func(c Cfg, z TrainSize) ModelCost
