"""The web side of online studies: the study link ``/join/<study token>``, the participant's end pages and the
experimenter dashboard, mounted onto the ``benchlab serve`` application by :func:`routes.mount_online`."""
