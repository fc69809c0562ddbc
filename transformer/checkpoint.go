package transformer

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ideabench/ideabench/internal/safetensors"
)

// ConfigKey is the safetensors metadata key under which a checkpoint
// stores its Config as JSON, so Load can rebuild the model.
const ConfigKey = "ideabench.config"

// ChecksumKey is the metadata key under which a checkpoint stores the
// SHA-256 of its tensor bytes (safetensors.DataSHA256); LoadCheckpoint
// refuses a file whose tensors do not match it.
const ChecksumKey = "ideabench.sha256_data"

// SaveCheckpoint writes the model's parameters to path in the safetensors
// format, one float32 tensor per view of the flat buffer under its
// PyTorch-style name (see the package doc), atomically. meta adds string
// metadata (e.g. normalization statistics); ConfigKey is reserved.
func SaveCheckpoint[F Float](path string, m *Model[F], meta map[string]string) error {
	cfg, err := json.Marshal(m.Config)
	if err != nil {
		return fmt.Errorf("transformer: encoding config: %w", err)
	}
	md := map[string]string{ConfigKey: string(cfg)}
	for k, v := range meta {
		if k == ConfigKey || k == ChecksumKey {
			return fmt.Errorf("transformer: metadata key %q is reserved (the model config and the tensors' checksum)", k)
		}
		md[k] = v
	}
	ts := make([]safetensors.Tensor, len(m.Params.Tensors))
	for i, ti := range m.Params.Tensors {
		v := m.Params.View(ti)
		data := make([]float32, len(v))
		for j, x := range v {
			data[j] = float32(x)
		}
		ts[i] = safetensors.Tensor{Name: ti.Name, Shape: slices.Clone(ti.Shape), Data: data}
	}
	md[ChecksumKey] = safetensors.DataSHA256(ts)
	return safetensors.WriteFile(path, ts, md)
}

// LoadCheckpoint reads a checkpoint written by SaveCheckpoint and returns a
// model with room for maxBatch windows, plus the file's other metadata.
// Every tensor of the config must be present with its shape; extra tensors
// are an error.
func LoadCheckpoint[F Float](path string, maxBatch int) (*Model[F], map[string]string, error) {
	ts, md, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	raw, ok := md[ConfigKey]
	if !ok {
		return nil, nil, fmt.Errorf("transformer: %s: no %q metadata; it was not written by ideabench", path, ConfigKey)
	}
	sum, ok := md[ChecksumKey]
	if !ok {
		return nil, nil, fmt.Errorf("transformer: %s: no %q metadata, the SHA-256 of its tensors; it predates checksums or was not written by ideabench: train it again", path, ChecksumKey)
	}
	if got := safetensors.DataSHA256(ts); got != sum {
		return nil, nil, fmt.Errorf("transformer: %s: its tensor bytes do not match the SHA-256 in its metadata (%s): the file is corrupt or was edited", path, ChecksumKey)
	}
	var c Config
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return nil, nil, fmt.Errorf("transformer: %s: bad %q metadata: %w", path, ConfigKey, err)
	}
	m, err := New[F](c, maxBatch)
	if err != nil {
		return nil, nil, fmt.Errorf("transformer: %s: %w", path, err)
	}
	byName := make(map[string]safetensors.Tensor, len(ts))
	for _, t := range ts {
		byName[t.Name] = t
	}
	for _, ti := range m.Params.Tensors {
		t, ok := byName[ti.Name]
		if !ok {
			return nil, nil, fmt.Errorf("transformer: %s: tensor %q is missing", path, ti.Name)
		}
		if !slices.Equal(t.Shape, ti.Shape) {
			return nil, nil, fmt.Errorf("transformer: %s: tensor %q has shape %v, want %v", path, ti.Name, t.Shape, ti.Shape)
		}
		v := m.Params.View(ti)
		for j, x := range t.Data {
			v[j] = F(x)
		}
		delete(byName, ti.Name)
	}
	for name := range byName {
		return nil, nil, fmt.Errorf("transformer: %s: unexpected tensor %q for this config", path, name)
	}
	delete(md, ConfigKey)
	delete(md, ChecksumKey)
	return m, md, nil
}
