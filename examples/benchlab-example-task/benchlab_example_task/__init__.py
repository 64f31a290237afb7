"""An example benchlab plug-in: which of two numbers is larger (integers and decimals)."""
