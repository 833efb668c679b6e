# Placeholder for files compiled into the binary (the default catalog lands here).
