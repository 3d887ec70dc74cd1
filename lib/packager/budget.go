package packager

import "github.com/rules-offload/rules_offload/lib/outbudget"

// Charge charges every file and archive member the plan writes to b,
// before anything is written: images whose bytes overlap or repeat would
// otherwise let a small input write without bound (LLVM writes every copy).
func (p *Plan) Charge(b *outbudget.Budget) error {
	for _, o := range p.Outputs {
		for i := range o.Images {
			if err := b.Charge(uint64(o.Images[i].Size)); err != nil {
				return err
			}
		}
	}
	return nil
}
