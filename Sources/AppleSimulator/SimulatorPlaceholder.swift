// The simulator device lands in a following commit.
enum SimulatorPlaceholder {}
