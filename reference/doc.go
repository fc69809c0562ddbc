// Package reference fits the reference forecasters every report quotes
// beside the model: persistence, seasonal persistence, the linear maps
// (shared over channels and per channel, on the raw window and centred on
// its last value) at each look-back of the grid, and the noise floor where
// the track knows it (References). Forecasters.Judge then says whether a
// baseline is competent against them.
package reference
