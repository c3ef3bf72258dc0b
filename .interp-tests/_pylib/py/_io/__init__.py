""" input/output helping """
