"""Signal processing ops: complex numbers (Complex, Real, Imag, Angle, ComplexAbs), FFTs
(FFT ... IRFFTND), and tf.signal's composites (frames, windows, STFTs, mel matrices, MFCCs,
DCTs, MDCTs), and tf.audio's WAV codec (DecodeWav, EncodeWav)."""
