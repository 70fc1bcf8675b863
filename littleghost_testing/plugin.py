"""pytest plugin for littleghost (fixtures land with the testing kit)."""
