""" high-level sub-process handling """
