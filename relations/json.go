package relations

import (
	"encoding/json"
	"fmt"
)

func jsonUnmarshal(s string, v any) error {
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("decode relation metadata: %w", err)
	}
	return nil
}
