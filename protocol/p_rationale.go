package protocol

// PanelRationale is the report's rationale for the panel track.
const PanelRationale = "Panel forecast: every window is its own series of sinusoids under AR(1) noise, so the model must infer periods, amplitudes and phases in context; a per-token fading-memory gate can weigh the evidence it accumulates over the window."

// TrackRationale is the seed report's rationale for the sequence track.
const TrackRationale = "Sequence forecast contains multi-token temporal correlations and matches the proposed per-token fading-memory transformer gate."
