"""The development image: a pure plan of the image build and run."""
