""" unified file system api """
