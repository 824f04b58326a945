"""What every feature shares: the AWS call and its retry, item helpers, names, config, the HTTP edge."""
