"""The rows of the campaign, one module per kind of trouble."""
