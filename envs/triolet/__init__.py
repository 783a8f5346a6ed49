"""Le triolet: configuration (``config``), cards and action ids (``rules``), the batched core (``core``),
observations (``observation``) and text pictures (``render``)."""
